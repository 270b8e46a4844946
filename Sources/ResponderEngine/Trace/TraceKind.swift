/// What started a traced action.
public enum TraceKind: String, Sendable {
    /// `trigger`: an event dispatch.
    case event
    /// `report`: an error dispatch.
    case error
    /// A downward publication.
    case publish
    /// A control action (simulated input, `sendActions`) that did not start a dispatch of its
    /// own, e.g. one refused because the control is disabled.
    case action
}
