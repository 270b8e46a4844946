/// What a body's result does to the dispatch (see ``ResponderKind/outcome(of:)``).
public enum ResponderOutcome {
    /// The value stops here.
    case consumed
    /// The value goes on unchanged.
    case passed
    /// The value goes on replaced by this one (a transform; `catchError`'s event, of the other kind).
    case replaced(Value)
    /// The body raised this value; it starts at the next entry of the same node.
    case raised(Value)
    /// Unwind the whole action (a pending strict violation or limit).
    case aborted
    /// The body returned something its kind cannot use; `expected` says what it should have.
    case wrong(expected: String)
}

extension ResponderKind {
    /// The one place that interprets a responder's result: what `result`, returned by a body of
    /// this kind, does to the dispatch (SPEC §2.4's table). Used by the dispatcher; a binding may
    /// call it early to word a wrong return in its own language.
    public func outcome(of result: ResponderResult) -> ResponderOutcome {
        switch result {
        case .aborted: return .aborted
        case .thrown(let error): return .raised(error)
        default: break
        }
        switch self {
        case .handleEvent, .handleError:
            return .consumed
        case .receiveEvent, .receiveError:
            switch result {
            case .handled: return .consumed
            case .notHandled, .nothing: return .passed
            default: return .wrong(expected: "true, false or nil")
            }
        case .transformEvent, .transformError:
            if case .value(let value) = result, value.kind == accepts { return .replaced(value) }
            return .wrong(expected: accepts == .event ? "an event" : "an error")
        case .catchError:
            if case .value(let value) = result, value.kind == .event { return .replaced(value) }
            return .wrong(expected: "an event")
        case .triggers, .reports, .handleAlertErrors:
            return .passed
        }
    }
}
