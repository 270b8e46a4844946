/// A declared event or error type, such as `ItemSelected` or `NetworkError`.
///
/// Types form single-inheritance trees: a type may name a parent type of the same kind.
/// Type filters on responders match a type and all of its descendants.
/// Types are compared by identity. A type is immutable after creation (hence `Sendable`).
public final class ValueType: @unchecked Sendable, CustomStringConvertible {
    /// The type's name, as printed in values and traces.
    public let name: String
    /// Whether values of this type are events or errors.
    public let kind: ValueKind
    /// The parent type, or `nil` for a root type.
    public let parent: ValueType?
    /// Whether this is an `AlertableError` type (or descends from one).
    public let isAlertable: Bool
    /// Number of ancestors.
    let depth: Int
    /// Identities of the root type … this type (`depth + 1` entries): `chain[d]` is the
    /// ancestor at depth `d`, so ancestry is one comparison and needs no reference counting.
    let chain: UnsafeMutablePointer<UnsafeRawPointer>
    /// The memory charged for the type, its name and its ancestry chain.
    let memory: MemoryAccount

    /// Creates a type.
    /// - Parameters:
    ///   - name: The type's name.
    ///   - kind: Event or error.
    ///   - parent: An optional parent type; values of this type then also match the parent.
    ///   - alertable: Whether values are alertable errors; inherited from `parent` when it is.
    ///   - meter: The meter charged for the type (see ``MemoryMeter``).
    public init(
        name: String, kind: ValueKind, parent: ValueType? = nil, alertable: Bool = false,
        meter: MemoryMeter? = nil
    ) {
        self.name = name
        self.kind = kind
        self.parent = parent
        self.isAlertable = alertable || (parent?.isAlertable ?? false)
        let depth = parent.map { $0.depth + 1 } ?? 0
        self.depth = depth
        self.chain = .allocate(capacity: depth + 1)
        if let parent { chain.initialize(from: parent.chain, count: depth) }
        var memory = MemoryAccount(meter)
        memory.charge(
            MemoryMeter.Cost.object(72) + MemoryMeter.Cost.string(name)
                + MemoryMeter.Cost.block(8 * (depth + 1)))
        self.memory = memory
        (chain + depth).initialize(to: identity)
    }

    deinit {
        chain.deallocate()
    }

    /// This type's identity as used in ``chain``.
    /// Lifetime proof: identities are only compared, never dereferenced, and each one stored
    /// (``chain``, `ResponderEntry.filterIdentity`) belongs to a type its holder retains (`parent`,
    /// `filter`). Lua never sees one. Test: filters in scripts/tests/api/types_spec.lua.
    var identity: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// Returns `true` when `other` is this type or one of its descendants.
    ///
    /// This is the matching rule of type filters: one depth comparison and one identity
    /// comparison, without allocating or reference counting.
    public func isSame(orAncestorOf other: ValueType) -> Bool {
        other.depth >= depth && other.chain[depth] == identity
    }

    /// The type's name.
    public var description: String { name }

    /// The built-in error type the engine uses for protocol misuse (for example a transform that
    /// returned the wrong kind of value) when ``World/makeRuntimeError`` is not replaced.
    public static let runtimeError = ValueType(name: "RuntimeError", kind: .error)
}
