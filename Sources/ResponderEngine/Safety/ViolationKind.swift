/// The rules a script can break.
public enum ViolationKind: String, Sendable, CaseIterable {
    /// An event reached past the root unhandled.
    case unhandledEvent
    /// An error reached past the root unhandled.
    case unhandledError
    /// An event passed a `triggers` declaration that does not cover its type.
    case undeclaredEvent
    /// An error passed a `reports` declaration that does not cover its type.
    case undeclaredError
    /// A declared type has no typed responder above the declaration.
    case missingResponder
    /// A subscriber has no publisher for its type above it.
    case subscriberWithoutPublisher
    /// A nil-target action nobody performs (reported by the bridge's target–action layer).
    case unhandledAction
}
