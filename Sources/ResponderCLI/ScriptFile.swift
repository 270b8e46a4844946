import ArgumentParser
import ResponderLua

/// Usage checks on script paths: missing, directory, unreadable files exit 2 with a hint.
enum ScriptFile {
    static func check(_ path: String, command: String) throws {
        if case .failure(let problem) = FileText.read(path) {
            Stderr.write(openError(path, problem) + "hint: give the path of a .lua file; see 'responder \(command) --help'\n")
            throw ExitCode(2)
        }
    }

    /// The line that says why the script at `path` cannot be read: `error: cannot open 'PATH': WHY`.
    static func openError(_ path: String, _ problem: FileText.Problem) -> String {
        let why: String
        switch problem {
        case .missing: why = "no such file"
        case .directory: why = "is a directory"
        case .unreadable(let reason): why = "cannot read (\(reason))"
        }
        return "error: cannot open '\(path)': \(why)\n"
    }
}
