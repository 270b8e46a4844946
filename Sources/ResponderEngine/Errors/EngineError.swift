/// Misuse of the engine API: the errors world and node calls throw besides ``StrictViolation``.
public enum EngineError: Error, Equatable, CustomStringConvertible {
    /// Adding a node into its own subtree.
    case cycle
    /// More than ``World/maximumDispatchDepth`` dispatches nested.
    case nestedTooDeeply
    /// A value of the wrong kind was given, e.g. an error to `trigger`.
    case wrongKind(function: String, expected: ValueKind, got: String)
    /// A value whose type is not the expected one, e.g. publishing `B` through a publisher of `A`.
    case wrongType(function: String, expected: String, got: String)
    /// `tap` on a node without tap actions.
    case noTapAction(node: String)
    /// `tap` with a count that none of the node's tap actions has (e.g. a double tap on a node
    /// with only a single-tap action).
    case noTapActionForCount(node: String, count: Int, counts: [Int])
    /// `mount` of a node that has a parent.
    case notARoot(node: String)
    /// A responder body returned `.aborted` while no strict violation was pending.
    case aborted

    /// The message, lower-case, without a trailing period.
    public var description: String {
        switch self {
        case .cycle: "would create a cycle"
        case .nestedTooDeeply: "dispatch nested too deeply"
        case .wrongKind(let function, let expected, let got): "\(function) expects an \(expected), got \(got)"
        case .wrongType(let function, let expected, let got): "\(function) expects \(expected), got \(got)"
        case .noTapAction(let node): "\(node) has no tap action"
        case .noTapActionForCount(let node, let count, let counts):
            "\(node) has no tap action for \(count) tap\(count == 1 ? "" : "s") (it has: "
                + counts.map { "\($0) tap\($0 == 1 ? "" : "s")" }.joined(separator: ", ") + ")"
        case .notARoot(let node): "cannot mount \(node): it has a parent"
        case .aborted: "dispatch aborted"
        }
    }
}
