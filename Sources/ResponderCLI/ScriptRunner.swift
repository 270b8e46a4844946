import ResponderEngine
import ResponderKit
import ResponderLua

/// Runs one script in a fresh sandboxed runtime and reports failures the way SPEC §3 fixes.
enum ScriptRunner {
    /// Returns the exit status: 0 ok, 1 script error or strict violation, 3 a sandbox limit.
    static func run(
        file: String, arguments: [String], options: ScenarioOptions,
        coverage: CoverageOptions? = nil
    ) -> Int32 {
        // The runtime lives in `execute` alone: closing its state, as it ends, runs the finalizers
        // left. A strict violation one of them meets cannot be raised any more (Lua drops a
        // finalizer's error as it closes), so it is reported here (it was lost, where relaxed
        // printed its warning: found by an adversary probe).
        guard let (status, world, strictBefore) = execute(file, arguments, options, coverage) else { return 3 }
        if let violation = world?.strictViolation(since: strictBefore) {
            Stderr.write("error: \(violation.line) (in a finalizer while the Lua state was closing)\n")
            return status == 0 ? 1 : status
        }
        return status
    }

    /// Runs the script in a runtime of its own: its status, its world and the strict violations
    /// raised so far (nil when no runtime could be made).
    private static func execute(
        _ file: String, _ arguments: [String], _ options: ScenarioOptions, _ coverage: CoverageOptions?
    ) -> (Int32, World?, Int)? {
        let runtime: LuaRuntime
        do {
            var options = options
            options.coverage = coverage?.mode ?? .off
            runtime = try Scenario.makeRuntime(options)
        } catch {
            Stderr.write("error: \(error.message)\n")
            return nil
        }
        let status = run(runtime, file: file, arguments: arguments, coverage: coverage)
        return (status, runtime.world, runtime.world?.strictViolationTotal ?? 0)
    }

    private static func run(
        _ runtime: LuaRuntime, file: String, arguments: [String], coverage: CoverageOptions?
    ) -> Int32 {
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
