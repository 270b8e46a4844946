import ArgumentParser
import ResponderLua

/// Usage checks on script paths: missing, directory, unreadable files exit 2 with a hint.
enum ScriptFile {
    static func check(_ path: String, command: String) throws {
        switch FileText.read(path) {
        case .success:
            return
        case .failure(let problem):
            let why: String
            switch problem {
            case .missing: why = "no such file"
            case .directory: why = "is a directory"
            case .unreadable(let reason): why = "cannot read (\(reason))"
            }
            Stderr.write("error: cannot open '\(path)': \(why)\nhint: give the path of a .lua file; see 'responder \(command) --help'\n")
            throw ExitCode(2)
        }
    }
}
