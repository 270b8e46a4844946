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
        // per function performed: nil when it returned, else the steps of the error it raised
        var functionSteps: [[TraceStep]?] = []
        var throwTrace: Trace?  // the trace of the last error a function raised
        func ranFunction(since before: Trace?, raised: Bool) {
            guard raised else { return functionSteps.append(nil) }
            functionSteps.append(stepsOfErrorReported(since: before))
            if lastTrace !== before { throwTrace = lastTrace }
        }
        for action in node.tapActions where action.count == count {
            switch action.action {
            case .trigger(let event):
                outcome = try trigger(event, from: node, location: location)
            case .triggerProduced(let produce):
                let before = lastTrace
                let event = try produce()
                try checkPendingAbort()
                guard let event else {
                    // it ran as a function: it returned nothing, or it raised (or returned what
                    // is not an event) and the error was reported
                    ranFunction(since: before, raised: lastTrace !== before)
                    continue
                }
                outcome = try trigger(event, from: node, location: location)
            case .perform(let body):
                let before = lastTrace
                let returned = try body()
                try checkPendingAbort()
                ranFunction(since: before, raised: !returned)
            }
        }
        // A tap that only ran functions records its own trace (SPEC §2.8: every top-level action
        // does), unless something it ran recorded one (an event it triggered, a control's action,
        // an error it reported); inside a dispatch it is part of that dispatch's trace. An error
        // a function raised goes on in the tap's trace after the function's `threw` step, as a
        // control's action's does.
        if !functionSteps.isEmpty && dispatchDepth == 0 && (lastTrace === traceBefore || lastTrace === throwTrace) {
            recordTapTrace(node, functionSteps)
        }
        return outcome
    }

    /// The trace of a tap that ran functions: `action tap from Node`, one step
    /// `onTapGesture handled` for each function that returned, `onTapGesture threw` and the
    /// steps of its error for one that raised (tap actions are not entries of
    /// `node:responders()`: no index).
    private func recordTapTrace(_ node: Node, _ functions: [[TraceStep]?]) {
        let value = Trace.actionValue("tap")
        var steps: [TraceStep] = []
        for errorSteps in functions {
            var step = TraceStep(
                node: node, index: 0, responder: "onTapGesture", filter: nil, value: value, decision: .handled)
            if let errorSteps {
                step.decision = .threw
                step.result = errorSteps.first?.value
                steps.append(step)
                steps.append(contentsOf: errorSteps)
            } else {
                steps.append(step)
            }
        }
        let trace = Trace(action: value, origin: node, steps: steps)
        trace.charge(to: meter, sharedPath: false)
        lastTrace = trace
    }
}
