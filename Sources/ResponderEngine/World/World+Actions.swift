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
        if inputSteps != nil {
            inputSteps!.steps += trace.steps
            inputSteps!.actions += 1
        }
        lastTrace = trace
    }

    /// The steps of the error dispatch that became the last trace after `before` (the error a
    /// control's handler raised, reported from the control): an action trace continues with
    /// them after the handler's `threw` step. Empty when no such dispatch was recorded (inside a
    /// dispatch, or when the handler ended otherwise).
    public func stepsOfErrorReported(since before: Trace?) -> [TraceStep] {
        guard let reported = lastTrace, reported !== before, reported.kind == .error else { return [] }
        return reported.steps
    }

    /// Runs `body`, a simulated input named `name` on `node` that may send several control
    /// actions (`slide`: editingDidBegin, valueChanged, editingDidEnd). When it sent more than
    /// one, the last trace is one action trace of the input (`action slide from Slider#s`) with
    /// the steps of all of them in order, as a disabled control's refusal names the input too.
    /// When it ran no action and recorded no other trace (a `Toggle` with only its binding),
    /// the input still records its trace, without steps (SPEC §2.8: every top-level action).
    public func performInput<T>(_ name: String, at node: Node, _ body: () throws -> T) rethrows -> T {
        guard dispatchDepth == 0, inputSteps == nil else { return try body() }
        if actionDepth == 0 { driveSerial &+= 1 }
        inputSteps = ([], 0)
        let before = lastTrace
        defer {
            if let input = inputSteps, input.actions > 1 || (input.actions == 0 && lastTrace === before) {
                lastTrace = Trace(action: Trace.actionValue(name), origin: node, steps: input.steps)
            }
            inputSteps = nil
        }
        return try body()
    }
}
