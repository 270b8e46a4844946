extension World {
    /// Records that the control action `name` reached `node` while it was disabled (or busy), so nothing
    /// was performed (SPEC §2.10): a top-level action's trace (``lastTrace``) then has a single
    /// `disabled` step.
    /// - Parameters:
    ///   - name: The action, e.g. `tap`, `typeText`, `touchUpInside`.
    ///   - node: The disabled control.
    ///   - decision: ``Decision/disabled``, or ``Decision/loading`` for a busy AsyncButton.
    public func recordRefused(_ name: String, at node: Node, decision: Decision = .disabled) {
        guard dispatchDepth == 0 else { return }
        lastTrace = Trace(action: name, origin: node, decision: decision)
    }

    /// Makes `trace` (a control action's) the last trace, unless the action runs inside a
    /// dispatch (a responder sending actions): such sends are part of that dispatch.
    public func recordAction(_ trace: Trace) {
        guard dispatchDepth == 0 else { return }
        lastTrace = trace
    }
}
