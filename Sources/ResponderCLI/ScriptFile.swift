import ArgumentParser
import ResponderLua

/// Usage checks on script paths: missing, directory, unreadable files exit 2 with a hint.
enum ScriptFile {
    static func check(_ path: String, command: String) throws {
        if let problem = FileText.problem(path) {
            Stderr.write(
                FileText.openError(path, problem)
                    + "hint: give the path of a .lua file; see 'responder \(command) --help'\n")
            throw ExitCode(2)
        }
    }

}
