extension World {
    /// Triggers `event` from `node`: it starts at the node's first entry and walks up to the root.
    /// - Parameters:
    ///   - event: An event value.
    ///   - node: Where the dispatch starts.
    ///   - location: The script line that triggered it (for diagnostics).
    /// - Returns: The outcome; an unhandled event is also a violation (relaxed: a warning).
    /// - Throws: ``EngineError/wrongKind(function:expected:got:)``,
    ///   ``EngineError/nestedTooDeeply``, ``StrictViolation``.
    @discardableResult
    public func trigger(_ event: Value, from node: Node, location: SourceLocation? = nil) throws -> Outcome {
        guard event.kind == .event else {
            throw EngineError.wrongKind(function: "trigger", expected: .event, got: "error \(event)")
        }
        return try dispatch(event, from: node, location: location)
    }

    /// Reports `error` from `node`; see ``trigger(_:from:location:)``.
    @discardableResult
    public func report(_ error: Value, from node: Node, location: SourceLocation? = nil) throws -> Outcome {
        guard error.kind == .error else {
            throw EngineError.wrongKind(function: "report", expected: .error, got: "event \(error)")
        }
        return try dispatch(error, from: node, location: location)
    }

    private func dispatch(_ value: Value, from node: Node, location: SourceLocation?) throws -> Outcome {
        try nestedDispatch { isTopLevel in try dispatch(value, from: node, location: location, isTopLevel: isTopLevel) }
    }

    private func dispatch(
        _ value: Value, from node: Node, location: SourceLocation?,
        isTopLevel: Bool
    ) throws -> Outcome {
        var dispatcher = Dispatcher(world: self, value: value, origin: node)
        // the path was walked to the root (and is walked again): charged by its length
        work.charge(dispatcher.path.count)
        let sharedPath = dispatcher.sharesPath(with: lastTrace)
        let end: Dispatcher.End
        do {
            end = try dispatcher.run()
        } catch {
            dispatcher.trace.charge(to: meter, sharedPath: sharedPath)
            if isTopLevel { lastTrace = dispatcher.trace }
            throw error
        }
        let trace = dispatcher.trace
        trace.charge(to: meter, sharedPath: sharedPath)
        if isTopLevel { lastTrace = trace }
        switch end {
        case .handled(let by, let entry):
            trace.end(Trace.Ending(handled: true, by: by, responder: entry.kind.rawValue, value: dispatcher.value))
            return Outcome(
                handled: true, by: by, responder: entry.kind.rawValue,
                value: dispatcher.value, trace: trace)
        case .unhandled:
            let final = dispatcher.value
            // the text of a violation nobody sees is never built (it can be large)
            let level = node.effectiveSafetyLevel(default: defaultSafetyLevel)
            if level != .disabled {
                let path = dispatcher.path.map(\.description).joined(separator: " > ")
                let message = "unhandled \(final.kind) \(final) from \(node) (path: \(path))"
                let kind: ViolationKind = final.kind == .event ? .unhandledEvent : .unhandledError
                try reportViolation(
                    Violation(
                        kind: kind, message: message, node: node, value: final,
                        location: location ?? locationProvider?()), level: level)
            }
            trace.end(Trace.Ending(handled: false, by: nil, responder: nil, value: final))
            return Outcome(handled: false, by: nil, responder: nil, value: final, trace: trace)
        }
    }
}
