import ArgumentParser
import ResponderGraph
import ResponderKit
import ResponderLua
import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `responder graph FILE.lua`: runs a script, then draws the mounted tree with each node's
/// responders and the last dispatch's path highlighted (SPEC §3).
///
/// Formats: `dot` (the default, Graphviz input; SPEC §3 lists it first), `text` (an indented
/// tree) and `svg` (the dot
/// text through Graphviz's `dot -Tsvg`, which must be on `PATH`). The script's own output goes
/// to standard error, so standard output carries only the picture.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Run a Lua scenario script, then draw its mounted tree and last dispatch.",
        discussion: ExitStatusHelp.discussion(
            """
            The script's own output (print, warnings) goes to standard error, so standard output \
            holds only the picture. 'svg' needs Graphviz's 'dot' on PATH; 'dot' output can be \
            rendered later with 'dot -Tsvg' or 'dot -Tpng'.
            """)
    )

    @Argument(help: "The script to run.")
    var file: String

    @Option(help: "Output format: dot (Graphviz input), svg (through Graphviz) or text (an indented tree).")
    var format: String = "dot"

    @Option(help: "Write the picture to FILE instead of standard output.")
    var output: String?

    @OptionGroup var scenario: ScenarioFlags

    func validate() throws {
        if !["text", "dot", "svg"].contains(format) {
            throw ValidationError("--format must be dot, svg or text (got '\(format)')")
        }
        try scenario.check()
        if let output, output.isEmpty { throw ValidationError("--output needs a file name") }
    }

    func run() throws {
        try ScriptFile.check(file, command: "graph")
        // an output that cannot be a file is a usage error, found before the script runs
        if let output {
            let folder = FileText.directory(of: output)
            if FileText.isDirectory(output) {
                Stderr.write("error: --output '\(output)' is a directory (give a file name)\n")
                throw ExitCode(2)
            }
            if !FileText.isDirectory(folder) {
                Stderr.write("error: --output '\(output)': no folder '\(folder)'\n")
                throw ExitCode(2)
            }
        }
        // Find Graphviz before running the script, so a missing tool fails fast.
        var dotPath: String?
        if format == "svg" {
            dotPath = GraphvizTool.find("dot")
            if dotPath == nil {
                Stderr.write("error: graphviz 'dot' not found; install graphviz or use --format dot\n")
                throw ExitCode(1)
            }
        }

        let runtime: LuaRuntime
        do {
            runtime = try Scenario.makeRuntime(scenario.settings.options())
        } catch {
            Stderr.write("error: \(error.message)\n")
            throw ExitCode(3)
        }
        // The wall-clock limit covers the script, the capture and the rendering (never stopped:
        // the process ends after the output is written).
        runtime.startTimeout()
        var failure: LuaFailure?
        StdoutToStderr.during {
            do throws(LuaFailure) {
                try runtime.runFile(file)
            } catch {
                failure = error
            }
        }
        if let failure {
            ScriptRunner.report(failure)
            throw ExitCode(failure.isLimit ? 3 : 1)
        }

        let graph: TreeGraph
        let strictBefore = runtime.world?.strictViolationTotal ?? 0
        do {
            graph = try TreeGraph.capture(world: runtime.world, notes: KitNotes.provider(runtime))
        } catch {
            Stderr.write("error: \(error.message)\n")
            throw ExitCode(1)
        }
        // Drawing calls the script's Lua (a field's __tostring, a binding's getter), whose errors
        // give a fallback text; a limit or a strict violation met there fails the command as it
        // would the script (they were swallowed: exit 0; found by an adversary probe). One more
        // protected call through the one path raises a limit that stands.
        do throws(LuaFailure) {
            try runtime.runString("", chunkname: "=(graph)")
        } catch {
            // (no traceback: the call that found the limit is this command's, not the script's)
            Stderr.write("error: \(error.message) (while the picture was drawn)\n")
            throw ExitCode(error.isLimit ? 3 : 1)
        }
        if let violation = runtime.world?.strictViolation(since: strictBefore) {
            Stderr.write("error: \(violation.line) (while the picture was drawn)\n")
            throw ExitCode(1)
        }

        let rendered: String
        switch format {
        case "dot":
            rendered = graph.dot()
        case "svg":
            // (a time limit that ends the process kills graphviz with it)
            defer { LuaRuntime.setHardExitChild(0) }
            guard let dotPath,
                let result = TestProcess.run(
                    dotPath, ["-Tsvg"], input: graph.dot(), onSpawn: { LuaRuntime.setHardExitChild($0) })
            else {
                Stderr.write("error: cannot run graphviz 'dot'\n")
                throw ExitCode(1)
            }
            guard result.status == 0 else {
                Stderr.write("error: graphviz 'dot' failed (\(result.termination))\n" + result.stderr)
                throw ExitCode(1)
            }
            rendered = result.stdout
        default:
            rendered = graph.text()
        }

        if let output {
            guard FileText.write(rendered, to: output) else {
                // (as a report file that cannot be written: 2, not a script's failure)
                Stderr.write("error: cannot write '\(output)': \(String(cString: strerror(errno)))\n")
                throw ExitCode(2)
            }
        } else {
            Console.out(rendered)
            Console.flush()
        }
    }
}

/// Locating an external program on `PATH`.
enum GraphvizTool {
    /// The first executable `name` in the directories of `PATH`, or `nil`.
    static func find(_ name: String) -> String? {
        guard let raw = getenv("PATH") else { return nil }
        for dir in String(cString: raw).split(separator: ":", omittingEmptySubsequences: false) {
            let base = dir.isEmpty ? "." : String(dir)
            let candidate = base + "/" + name
            if FileText.isFile(candidate), access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// Sends standard output to standard error while a body runs (the script's prints must not
/// mix with the picture on standard output).
enum StdoutToStderr {
    static func during(_ body: () -> Void) {
        Console.flush()
        let saved = dup(1)
        guard saved >= 0 else { return body() }
        _ = dup2(2, 1)
        defer {
            Console.flush()
            _ = dup2(saved, 1)
            close(saved)
        }
        body()
    }
}
