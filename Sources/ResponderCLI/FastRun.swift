import ResponderLua

/// A fast path for the most common command line, `responder run FILE.lua [options] [-- ARGS]`:
/// parsing it by hand saves the general parser's start-up cost. Anything unusual (help, unknown
/// or malformed options, missing values) returns nil and goes through ArgumentParser, which
/// owns the error messages.
struct FastRun {
    var file: String
    var safety = "relaxed"
    var trace = false
    var seed: Int64?
    var maxInstructions: Int64?
    var maxMemory = 512
    var timeout: Double?
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
            case "--safety":
                guard let v = value(&i), SafetyOption.levels.contains(v) else { return nil }
                run.safety = v
            case "--seed":
                guard let v = value(&i), let n = Int64(v) else { return nil }
                run.seed = n
            case "--max-instructions":
                guard let v = value(&i), let n = Int64(v), n > 0 else { return nil }
                run.maxInstructions = n
            case "--timeout":
                guard let v = value(&i), let n = Double(v), LuaLimits.isValidTimeout(n) else { return nil }
                run.timeout = n
            case "--max-memory":
                guard let v = value(&i), let n = Int(v), n > 0, n <= LuaLimits.maximumMemoryMiB else { return nil }
                run.maxMemory = n
            default:
                if a.hasPrefix("-") || file != nil { return nil }
                file = a
            }
            i += 1
        }
        guard let file else { return nil }
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
        return ScriptRunner.run(
            file: file, arguments: scriptArguments,
            limits: LuaLimits(maxInstructions: maxInstructions ?? LuaLimits.defaults.maxInstructions,
                              maxMemoryMiB: maxMemory, exactInstructions: maxInstructions != nil,
                              timeoutSeconds: timeout ?? LuaLimits.defaultTimeoutSeconds),
            seed: seed, safety: safety, trace: trace)
    }
}
