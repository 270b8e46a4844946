/// What started a traced action.
public enum TraceKind: String, Sendable {
    /// `trigger`: an event dispatch.
    case event
    /// `report`: an error dispatch.
    case error
    /// A downward publication.
    case publish
}
