import ArgumentParser
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// The `responder` command: run, test, repl and graph Lua responder scenarios.
struct Responder: ParsableCommand {
    /// `responder 0.1.0 (Lua 5.4.4)`.
    static let version = "responder \(ResponderModule.version) (\(ResponderModule.luaRelease))"

    static let configuration = CommandConfiguration(
        commandName: "responder",
        abstract: "Lua scenarios over a Swift HierarchyResponder engine.",
        discussion: ExitStatusHelp.text,
        version: version,
        subcommands: [RunCommand.self, TestCommand.self, ExploreCommand.self, ReplCommand.self, GraphCommand.self]
    )

    /// ArgumentParser's `Error: …` in the casing of every other message (`error: …`).
    static func lowercasedErrorPrefix(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "error: " + message.dropFirst(7) : message
    }

    /// Parses and runs; usage errors exit 2 with a hint, as SPEC §3 fixes.
    static func main(_ arguments: [String]) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            ProcessExit.exit(0)
        } catch let code as ExitCode {
            ProcessExit.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                print(fullMessage(for: error))
                ProcessExit.exit(0)
            }
            Stderr.write(lowercasedErrorPrefix(fullMessage(for: error)) + "\n")
            if status == .validationFailure {
                ProcessExit.exit(2)
            }
            ProcessExit.exit(status.rawValue)
        }
    }
}
