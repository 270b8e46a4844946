/// The function a subscriber runs for a published event.
///
/// Only `.aborted` and `.thrown` matter: `.thrown(error)` reports the error from the
/// subscriber's node; other results are ignored.
public typealias SubscriberBody = (Value, DispatchContext) -> ResponderResult

/// A subscriber registered with ``Node/subscribe(type:id:once:location:body:)``.
public final class Subscriber {
    /// The event type subscribed to (subtypes match).
    public let type: ValueType
    /// Optional identifier.
    public let id: String?
    /// The registering script line, used by check 5.
    public let location: SourceLocation?
    /// Removed just before its first call (`{ once = true }`, SPEC §2.4).
    public let once: Bool
    /// The node the subscriber is registered on.
    public private(set) weak var node: Node?
    /// Its position among the publishers and subscribers of its node (see `Publisher.sequence`).
    var sequence = 0
    /// Set when the subscriber is removed (``Node/removeResponder(id:)``): a publication that
    /// selected it before does not call it.
    public internal(set) var isRemoved = false
    /// The body.
    public let body: SubscriberBody
    /// Counters for coverage: when set, every call of the body counts (`handled`, or `threw`
    /// when it raised).
    public var stats: ResponderStats?

    init(
        type: ValueType, id: String?, once: Bool, location: SourceLocation?, node: Node,
        body: @escaping SubscriberBody
    ) {
        self.type = type
        self.id = id
        self.once = once
        self.location = location
        self.node = node
        self.body = body
    }

    /// Estimated bytes of the subscriber, its body's context and its slot in the node's list.
    var cost: Int {
        MemoryMeter.Cost.object(80) + MemoryMeter.Cost.object(48) + MemoryMeter.Cost.string(id ?? "")
            + MemoryMeter.Cost.arraySlot
    }

    /// `subscribe(Type)`, the label used in publish traces.
    public var label: String { "subscribe(\(TextClip.clip(type.name, to: TextClip.column)))" }
}
