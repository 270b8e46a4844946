/// What a responder body returned, in the engine's words. A body only reports what it got; what
/// that means for the dispatch (consume, pass on, replace, or a wrong return) is decided in one
/// place, ``ResponderKind/outcome(of:)``.
public enum ResponderResult {
    /// Handled (Lua's `true`).
    case handled
    /// Not handled (Lua's `false`).
    case notHandled
    /// No value (Lua's `nil` or no result): a receive passes the value on.
    case nothing
    /// A value: a transform's result or the event a `catchError` produced.
    case value(Value)
    /// Something no kind can use; the text names it in the body's own words (`a string`).
    case unusable(String)
    /// An error raised by the body; it starts at the next entry of the same node.
    case thrown(Value)
    /// A strict violation or a limit is pending: unwind the whole action.
    case aborted

    /// What the body returned, for a wrong-return message.
    var described: String {
        switch self {
        case .handled: "true"
        case .notHandled: "false"
        case .nothing: "nil"
        case .value(let value): "\(value.kind) \(value)"
        case .unusable(let text): text
        case .thrown(let value): "thrown \(value)"
        case .aborted: "aborted"
        }
    }
}
