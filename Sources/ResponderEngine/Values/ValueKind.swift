/// The two families of values that travel up the tree.
///
/// Event responders only ever see events and error responders only ever see errors.
public enum ValueKind: String, Sendable {
    /// Something that happened (a tap, a selection, …).
    case event
    /// Something that went wrong.
    case error
}
