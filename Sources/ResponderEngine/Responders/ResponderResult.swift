/// What a responder body tells the dispatcher.
public enum ResponderResult {
    /// The value was consumed (receive/handle).
    case handled
    /// Pass the original value on (receive); ignored by handle, which always consumes.
    case notHandled
    /// The replacement value: a transform's result or the event a `catchError` produced.
    case value(Value)
    /// An error raised by the body; it starts at the next entry of the same node.
    case thrown(Value)
    /// A strict violation is pending: unwind the whole action.
    case aborted
}
