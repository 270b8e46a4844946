/// How violations of the responder rules are treated.
///
/// Set on a node with ``Node/safetyLevel`` for its subtree (the nearest setting wins) or on
/// the world with ``World/defaultSafetyLevel``.
public enum SafetyLevel: String, Sendable, CaseIterable {
    /// A diagnostic line and a record in ``World/warnings``.
    case relaxed
    /// The violation aborts the whole action with a ``StrictViolation``.
    case strict
    /// Nothing is printed or recorded.
    case disabled
}
