import ResponderEngine

extension ModuleState {
    /// With `--trace`, prints the last trace when the outermost action that just ended recorded
    /// a control action's trace (target–action, a refused input) rather than a dispatch, whose
    /// outcome prints its own.
    package func printNewActionTrace(since before: Trace?) {
        guard traceActions, isTopLevelAction, let trace = world.lastTrace,
            trace !== before, trace.kind == .action
        else { return }
        Console.error(trace.description + "\n")
    }
}
