/// The function a responder runs for a value its filter matched.
public typealias ResponderBody = (Value, DispatchContext) -> ResponderResult

/// One entry of a node's ordered responder list: a responder, a declaration or an alert handler.
public final class ResponderEntry: CustomStringConvertible {
    /// What the entry does.
    public let kind: ResponderKind
    /// The type filter; `nil` matches every value of the entry's kind.
    public let filter: ValueType?
    /// The declared types of a `triggers`/`reports` entry; empty otherwise.
    public let declared: [ValueType]
    /// An optional identifier used by ``Node/removeResponder(id:)``.
    public let id: String?
    /// Whether the entry removes itself just before it first runs.
    public let once: Bool
    /// The script line that registered the entry (used by declaration checks).
    public let location: SourceLocation?
    /// The body; called only when the filter matches. Unused by declarations and alert handlers.
    public let body: ResponderBody?
    /// The value kind this entry sees (cached for the dispatch loop).
    let accepts: ValueKind
    /// The filter's identity and depth, for the dispatch loop (see ``ValueType/chain``).
    let filterIdentity: UnsafeRawPointer?
    let filterDepth: Int
    /// Set when the entry is removed from its node; a removed entry never runs again.
    @exclusivity(unchecked) public internal(set) var isRemoved = false
    /// Coverage counters; `nil` (the default) counts nothing.
    @exclusivity(unchecked) public var stats: ResponderStats?

    /// Creates an entry. Add it to a node with ``Node/addResponder(_:)``.
    /// - Parameters:
    ///   - kind: What the entry does.
    ///   - filter: Optional type filter (subtypes match).
    ///   - declared: Declared types, for `triggers`/`reports`.
    ///   - id: Optional identifier.
    ///   - once: Remove the entry just before it first runs.
    ///   - location: The registering script line.
    ///   - body: The function to run.
    public init(
        kind: ResponderKind, filter: ValueType? = nil, declared: [ValueType] = [],
        id: String? = nil, once: Bool = false, location: SourceLocation? = nil,
        body: ResponderBody? = nil
    ) {
        self.kind = kind
        self.filter = filter
        self.declared = declared
        self.id = id
        self.once = once
        self.location = location
        self.body = body
        self.accepts = kind.accepts
        self.filterIdentity = filter?.identity
        self.filterDepth = filter?.depth ?? 0
    }

    /// A `triggers(...)` (events) or `reports(...)` (errors) declaration entry.
    /// - Parameters:
    ///   - kind: `.triggers` or `.reports`.
    ///   - types: The declared types.
    ///   - location: The declaring script line, used in violation messages.
    public static func declaration(
        _ kind: ResponderKind, _ types: [ValueType],
        location: SourceLocation? = nil
    ) -> ResponderEntry {
        ResponderEntry(kind: kind, declared: types, location: location)
    }

    /// The label used in traces: `receiveEvent`, `handleEvent(ItemSelected)`, `triggers(A, B)`
    /// (type names cut at ``TextClip/column`` characters: a trace makes one label a step).
    public var label: String {
        if kind.isDeclaration {
            let names = declared.map { TextClip.clip($0.name, to: TextClip.column) }
            return "\(kind.rawValue)(\(names.joined(separator: ", ")))"
        }
        if let filter { return "\(kind.rawValue)(\(TextClip.clip(filter.name, to: TextClip.column)))" }
        return kind.rawValue
    }

    /// Same as ``label``.
    public var description: String { label }

    /// Estimated bytes of the entry, its type list, its id, its body's context and its slot in
    /// the node's list (charged to the node while the entry is in the list).
    var cost: Int {
        MemoryMeter.Cost.object(136) + MemoryMeter.Cost.array(declared.count)
            + MemoryMeter.Cost.string(id ?? "") + (body == nil ? 0 : MemoryMeter.Cost.object(48))
            + MemoryMeter.Cost.arraySlot
    }
}
