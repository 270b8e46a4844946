import ResponderKit
import ResponderLua

/// Runs one script in a fresh sandboxed runtime and reports failures the way SPEC §3 fixes.
enum ScriptRunner {
    /// Returns the exit status: 0 ok, 1 script error or strict violation, 3 a sandbox limit.
    static func run(file: String, arguments: [String], limits: LuaLimits, seed: Int64?,
                    safety: String, trace: Bool) -> Int32 {
        let runtime: LuaRuntime
        do {
            runtime = try Scenario.makeRuntime(ScenarioOptions(limits: limits, seed: seed, safety: safety, trace: trace, watchdogSeconds: 10))
        } catch {
            Stderr.write("error: \(error.message)\n")
            return 3
        }
        do {
            try runtime.runFile(file, arguments: arguments)
            return 0
        } catch {
            report(error)
            return error.isLimit ? 3 : 1
        }
    }

    /// Prints `error: FILE:LINE: message` and the traceback.
    static func report(_ failure: LuaFailure) {
        var text = "error: \(failure.message)\n"
        if let tb = failure.traceback, !tb.isEmpty { text += tb + "\n" }
        Stderr.write(text)
    }
}
