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
        for action in node.tapActions where action.count == count {
            switch action.action {
            case .trigger(let event):
                outcome = try trigger(event, from: node, location: location)
            case .triggerProduced(let produce):
                let event = try produce()
                try checkPendingAbort()
                outcome = try trigger(event, from: node, location: location)
            case .perform(let body):
                try body()
                try checkPendingAbort()
            }
        }
        return outcome
    }
}
