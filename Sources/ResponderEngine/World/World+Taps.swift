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
        var position = 0
        for action in node.tapActions where action.count == count {
            position += 1
            switch action.action {
            case .trigger(let event):
                outcome = try trigger(event, from: node, location: location)
            case .triggerProduced(let produce):
                let event = try produce()
                try checkPendingAbort()
                outcome = try trigger(event, from: node, location: location)
            case .perform(let body):
                let before = lastTrace
                try body()
                try checkPendingAbort()
                // a tap performed by a function records its own trace (SPEC §2.8: every
                // top-level action does), unless the function recorded one (a control's action)
                if actionDepth == 1 && lastTrace === before { recordTapTrace(node, position: position) }
            }
        }
        return outcome
    }

    /// The trace of a tap performed by a function: `action tap from Node`, one step
    /// `#position onTapGesture handled`.
    private func recordTapTrace(_ node: Node, position: Int) {
        let value = Trace.actionValue("tap")
        let trace = Trace(
            action: value, origin: node,
            steps: [
                TraceStep(
                    node: node, index: position, responder: "onTapGesture", filter: nil, value: value,
                    decision: .handled)
            ])
        trace.charge(to: meter, sharedPath: false)
        lastTrace = trace
    }
}
