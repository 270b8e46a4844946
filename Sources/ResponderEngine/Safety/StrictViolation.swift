/// The error thrown out of the outermost world call when a violation happens under
/// ``SafetyLevel/strict``.
///
/// Every world call made while the abort is pending throws it again, and the dispatcher checks
/// for it after each responder body returns, so nothing inside a responder can swallow it.
/// The engine is single-threaded; the error is marked `Sendable` only to satisfy `Error`.
public struct StrictViolation: Error, @unchecked Sendable, CustomStringConvertible {
    /// The violation that aborted the action.
    public var violation: Violation

    /// Wraps a violation.
    public init(_ violation: Violation) { self.violation = violation }

    /// `FILE:LINE: message`.
    public var description: String { violation.description }
}
