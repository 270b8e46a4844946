import ResponderLua

/// A fast path for the most common command line, `responder run FILE.lua [options] [-- ARGS]`:
/// parsing it by hand saves the general parser's start-up cost. Anything unusual (help, unknown
/// or malformed options, missing values) returns nil and goes through ArgumentParser, which
/// owns the error messages.
struct FastRun {
    var file: String
    /// The shared scenario options (`ScenarioFlags`), read by hand.
    var settings = ScenarioSettings()
    var trace = false
    var scriptArguments: [String] = []

    static func parse(_ args: [String]) -> FastRun? {
        guard args.count >= 2, args[0] == "run" else { return nil }
        var file: String?
        var run = FastRun(file: "")
        var i = 1
        func value(_ i: inout Int) -> String? {
            guard i + 1 < args.count else { return nil }
            i += 1
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            switch a {
            case "--":
                run.scriptArguments = Array(args[(i + 1)...])
                i = args.count
                continue
            case "--trace":
                run.trace = true
            case "--safety", "--seed", "--max-instructions", "--max-memory", "--timeout":
                guard let v = value(&i), run.settings.set(a, v) else { return nil }
            default:
                if a.hasPrefix("-") || file != nil { return nil }
                file = a
            }
            i += 1
        }
        guard let file, run.settings.problem == nil else { return nil }
        run.file = file
        return run
    }

    /// Runs the script; returns the exit status.
    func execute() -> Int32 {
        do {
            try ScriptFile.check(file, command: "run")
        } catch {
            return 2
        }
        return ScriptRunner.run(file: file, arguments: scriptArguments, options: settings.options(trace: trace))
    }
}
