extension World {
    /// Taps `node` `count` times at once: runs, in order, every tap action registered for that
    /// count. Trigger actions start at the node's first entry.
    /// - Returns: The outcome of the last event triggered, or `nil` when no trigger ran.
    /// - Throws: ``EngineError/noTapAction(node:)`` when the node has no tap action at all,
    ///   ``EngineError/noTapActionForCount(node:count:counts:)`` when none is for `count`;
    ///   errors of the actions; ``StrictViolation``.
    @discardableResult
    public func tap(_ node: Node, count: Int = 1, location: SourceLocation? = nil) throws -> Outcome? {
        try beginAction()
        defer { endAction() }
        guard !node.tapActions.isEmpty else { throw EngineError.noTapAction(node: node.description) }
        guard node.tapActions.contains(where: { $0.count == count }) else {
            var counts: [Int] = []
            for action in node.tapActions where !counts.contains(action.count) { counts.append(action.count) }
            throw EngineError.noTapActionForCount(node: node.description, count: count, counts: counts.sorted())
        }
        noteDriven(node)
        var outcome: Outcome?
        let traceBefore = lastTrace
        var performed = 0
        for action in node.tapActions where action.count == count {
            switch action.action {
            case .trigger(let event):
                outcome = try trigger(event, from: node, location: location)
            case .triggerProduced(let produce):
                let event = try produce()
                try checkPendingAbort()
                guard let event else {
                    performed += 1
                    continue
                }
                outcome = try trigger(event, from: node, location: location)
            case .perform(let body):
                try body()
                try checkPendingAbort()
                performed += 1
            }
        }
        // A tap that only ran functions records its own trace (SPEC §2.8: every top-level action
        // does), unless something it ran recorded one (an event it triggered, a control's action,
        // an error reported); inside a dispatch it is part of that dispatch's trace.
        if performed > 0 && dispatchDepth == 0 && lastTrace === traceBefore {
            recordTapTrace(node, functions: performed)
        }
        return outcome
    }

    /// The trace of a tap that ran functions: `action tap from Node`, one step
    /// `onTapGesture handled` for each (tap actions are not entries of `node:responders()`: no
    /// index).
    private func recordTapTrace(_ node: Node, functions: Int) {
        let value = Trace.actionValue("tap")
        let step = TraceStep(
            node: node, index: 0, responder: "onTapGesture", filter: nil, value: value, decision: .handled)
        let trace = Trace(action: value, origin: node, steps: Array(repeating: step, count: functions))
        trace.charge(to: meter, sharedPath: false)
        lastTrace = trace
    }
}
