/// A declared event or error type, such as `ItemSelected` or `NetworkError`.
///
/// Types form single-inheritance trees: a type may name a parent type of the same kind.
/// Type filters on responders match a type and all of its descendants.
/// Types are compared by identity.
public final class ValueType: Sendable, CustomStringConvertible {
    /// The type's name, as printed in values and traces.
    public let name: String
    /// Whether values of this type are events or errors.
    public let kind: ValueKind
    /// The parent type, or `nil` for a root type.
    public let parent: ValueType?
    /// Whether this is an `AlertableError` type (or descends from one).
    public let isAlertable: Bool
    /// Number of ancestors; lets ``isSame(orAncestorOf:)`` stop early.
    let depth: Int

    /// Creates a type.
    /// - Parameters:
    ///   - name: The type's name.
    ///   - kind: Event or error.
    ///   - parent: An optional parent type; values of this type then also match the parent.
    ///   - alertable: Whether values are alertable errors; inherited from `parent` when it is.
    public init(name: String, kind: ValueKind, parent: ValueType? = nil, alertable: Bool = false) {
        self.name = name
        self.kind = kind
        self.parent = parent
        self.isAlertable = alertable || (parent?.isAlertable ?? false)
        self.depth = parent.map { $0.depth + 1 } ?? 0
    }

    /// Returns `true` when `other` is this type or one of its descendants.
    ///
    /// This is the matching rule of type filters. It walks `other`'s parent chain and
    /// compares identities, without allocating.
    public func isSame(orAncestorOf other: ValueType) -> Bool {
        var candidate = other
        if candidate.depth < depth { return false }
        while candidate.depth > depth {
            candidate = candidate.parent.unsafelyUnwrapped
        }
        return candidate === self
    }

    /// The type's name.
    public var description: String { name }

    /// The built-in error type the engine uses for protocol misuse (for example a transform that
    /// returned the wrong kind of value) when ``World/makeRuntimeError`` is not replaced.
    public static let runtimeError = ValueType(name: "RuntimeError", kind: .error)
}
