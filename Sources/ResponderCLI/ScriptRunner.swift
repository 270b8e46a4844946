import ResponderKit
import ResponderLua

/// Runs one script in a fresh sandboxed runtime and reports failures the way SPEC §3 fixes.
enum ScriptRunner {
    /// Returns the exit status: 0 ok, 1 script error or strict violation, 3 a sandbox limit.
    static func run(
        file: String, arguments: [String], options: ScenarioOptions,
        coverage: CoverageOptions? = nil
    ) -> Int32 {
        let runtime: LuaRuntime
        do {
            var options = options
            options.coverage = coverage?.mode ?? .off
            runtime = try Scenario.makeRuntime(options)
        } catch {
            Stderr.write("error: \(error.message)\n")
            return 3
        }
        // The wall-clock limit covers the script, reporting its error and closing the state
        // (finalizers); it is never stopped: the process ends after that.
        runtime.startTimeout()
        var status: Int32 = 0
        do {
            try runtime.runFile(file, arguments: arguments)
        } catch {
            report(error)
            status = error.isLimit ? 3 : 1
        }
        if let coverage, let recorder = runtime.coverage {
            Console.flush()
            guard let summary = coverage.write(recorder.snapshot()) else { return status == 0 ? 2 : status }
            Stderr.write(summary)
        }
        return status
    }

    /// Prints `error: FILE:LINE: message` and the traceback.
    static func report(_ failure: LuaFailure) {
        var text = "error: \(failure.message)\n"
        if let tb = failure.traceback, !tb.isEmpty { text += tb + "\n" }
        Stderr.write(text)
    }
}
