/// A downward publisher created by ``Node/publisher(type:destination:id:)``.
///
/// Subscribers are found at publish time by walking the publisher node's subtree (the node
/// itself included) in document order. Published events never bubble up.
public final class Publisher {
    /// The event type this publisher publishes (values must be of it or a subtype).
    public let type: ValueType
    /// Which subscriber levels a publication reaches.
    public let destination: PublishingDestination
    /// Optional identifier.
    public let id: String?
    /// The node the publisher was created on.
    public private(set) weak var node: Node?
    /// Its position among the publishers and subscribers of its node: a subscriber on the same
    /// node is below the publisher only when registered before it (SPEC §2.7).
    var sequence = 0
    /// The publisher's own bytes, charged for as long as it lives: the script may keep it after
    /// its node is gone (charged to the node, a kept publisher's 1 MiB id was free once the
    /// node was collected; found by an adversary probe).
    private var memory: MemoryAccount

    init(type: ValueType, destination: PublishingDestination, id: String?, node: Node, meter: MemoryMeter?) {
        self.type = type
        self.destination = destination
        self.id = id
        self.node = node
        memory = MemoryAccount(meter)
        memory.charge(cost)
    }

    /// Estimated bytes of the publisher and its slot in the node's list.
    var cost: Int { MemoryMeter.Cost.object(64) + MemoryMeter.Cost.string(id ?? "") + MemoryMeter.Cost.arraySlot }

    /// Publishes `event` through `world`.
    /// - Returns: How many subscribers were reached.
    /// - Throws: See ``World/publish(_:through:location:)``.
    @discardableResult
    public func publish(_ event: Value, in world: World, location: SourceLocation? = nil) throws -> Int {
        try world.publish(event, through: self, location: location)
    }
}
