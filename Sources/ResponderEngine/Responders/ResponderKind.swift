/// The kinds of entries a node's responder list can hold.
///
/// The raw value is the name used in traces and outcomes (`"handleEvent"`, …).
public enum ResponderKind: String, Sendable, CaseIterable {
    /// Calls its body; `.handled` stops the event, `.notHandled` passes it on.
    case receiveEvent
    /// Calls its body, then always stops the event.
    case handleEvent
    /// Calls its body; the returned event goes on.
    case transformEvent
    /// Like ``receiveEvent`` for errors.
    case receiveError
    /// Like ``handleEvent`` for errors.
    case handleError
    /// Like ``transformEvent`` for errors.
    case transformError
    /// Turns an error into an event that starts at the next entry.
    case catchError
    /// Declares the events the subtree may emit; never consumes.
    case triggers
    /// Declares the errors the subtree may emit; never consumes.
    case reports
    /// Consumes alertable errors and presents an ``Alert``.
    case handleAlertErrors

    /// The kind of value entries of this kind see.
    public var accepts: ValueKind {
        switch self {
        case .receiveEvent, .handleEvent, .transformEvent, .triggers: .event
        default: .error
        }
    }

    /// Whether this is a `triggers`/`reports` declaration.
    public var isDeclaration: Bool { self == .triggers || self == .reports }

    /// Whether a typed entry of this kind counts as an explicit responder for check 4.
    public var isExplicitCandidate: Bool {
        switch self {
        case .triggers, .reports, .handleAlertErrors: false
        default: true
        }
    }
}
