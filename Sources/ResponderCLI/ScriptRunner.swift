import ResponderKit
import ResponderLua

/// Runs one script in a fresh sandboxed runtime and reports failures the way SPEC §3 fixes.
enum ScriptRunner {
    /// Returns the exit status: 0 ok, 1 script error or strict violation, 3 a sandbox limit.
    static func run(
        file: String, arguments: [String], options: ScenarioOptions,
        coverage: CoverageOptions? = nil
    ) -> Int32 {
        var runtime: LuaRuntime?
        do {
            var options = options
            options.coverage = coverage?.mode ?? .off
            runtime = try Scenario.makeRuntime(options)
        } catch {
            Stderr.write("error: \(error.message)\n")
            return 3
        }
        guard let opened = runtime else { return 3 }
        let status = run(opened, file: file, arguments: arguments, coverage: coverage)
        // Closing the state runs the finalizers left: a strict violation one of them meets cannot
        // be raised any more (Lua drops a finalizer's error as it closes), so it is reported here
        // (it was lost, where relaxed printed its warning: found by an adversary probe).
        let world = opened.world
        let strictBefore = world?.strictViolationCounts.values.reduce(0, +) ?? 0
        runtime = nil
        _ = consume opened  // the last reference: the state closes here
        if let world, world.strictViolationCounts.values.reduce(0, +) > strictBefore,
            let violation = world.lastStrictViolation
        {
            Stderr.write("error: \(violation.description) (in a finalizer while the Lua state was closing)\n")
            return status == 0 ? 1 : status
        }
        return status
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
