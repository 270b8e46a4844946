/// A view-like node of the tree: it holds children, an ordered responder list, publishers,
/// subscribers and tap actions.
///
/// Children are owned (strong); the parent link is not, so a detached subtree does not keep
/// its former parent alive and a parent going away clears its children's `parent`.
///
/// A node belongs to a ``World`` while it is part of that world's mounted tree (``world`` is
/// set). Structural changes of a mounted tree go through the world, which runs appear and
/// disappear hooks and the declaration checks for added subtrees.
public final class Node: CustomStringConvertible {
    /// The node's name, e.g. `Grid`.
    public let name: String
    /// The optional identifier used by `#id` selectors and in descriptions.
    public var id: String? {
        get { extras?.id }
        set {
            let oldValue = extras?.id
            guard newValue != nil || oldValue != nil else { return }
            let extras = ensureExtras()
            release(MemoryMeter.Cost.string(oldValue ?? ""))
            charge(MemoryMeter.Cost.string(newValue ?? ""))
            extras.id = newValue
        }
    }
    /// An opaque slot for the bridge (e.g. the kind of node it made). The engine never reads it.
    /// Setting it to a value other than 0 gives the node its extras (about 100 bytes): for a
    /// value every node has, use ``hostKey``.
    public var host: Int {
        get { extras?.host ?? 0 }
        set { if newValue != 0 || extras != nil { ensureExtras().host = newValue } }
    }
    /// The safety level set on this node for its subtree, or `nil` to inherit.
    public var safetyLevel: SafetyLevel? {
        get { extras?.safetyLevel }
        set { if newValue != nil || extras != nil { ensureExtras().safetyLevel = newValue } }
    }
    /// The explicit-responder requirement set on this node for its subtree, or `nil` to inherit.
    public var requireExplicitResponders: Bool? {
        get { extras?.requireExplicitResponders }
        set { if newValue != nil || extras != nil { ensureExtras().requireExplicitResponders = newValue } }
    }

    /// The parent, or `nil` for a root. Not owning; cleared when the parent goes away.
    public internal(set) var parent: Node? {
        get { parentLink?.takeUnretainedValue() }
        set { parentLink = newValue.map { Unmanaged.passUnretained($0) } }
    }
    /// The parent link without reference counting.
    /// Lifetime proof: a parent holds its children strongly, and every path that ends that
    /// (``detachFromParent()``, the parent's `deinit`) clears the link first, so a non-nil link
    /// points at a live node. Test: "a child outlives its parent" in scripts/tests/safety/lifetimes_spec.lua.
    @exclusivity(unchecked) var parentLink: Unmanaged<Node>?
    /// The children in order. Change them with ``add(_:at:)`` and ``remove()``.
    public internal(set) var children: [Node] = []
    /// The responder list in registration order.
    @exclusivity(unchecked) public internal(set) var responders: [ResponderEntry] = []
    /// Publishers created on this node, in creation order.
    public internal(set) var publishers: [Publisher] {
        get { extras?.publishers ?? [] }
        set { ensureExtras().publishers = newValue }
    }
    /// Subscribers registered on this node, in registration order.
    public internal(set) var subscribers: [Subscriber] {
        get { extras?.subscribers ?? [] }
        set { ensureExtras().subscribers = newValue }
    }
    /// Tap actions, in registration order.
    public internal(set) var tapActions: [TapAction] {
        get { extras?.tapActions ?? [] }
        set { ensureExtras().tapActions = newValue }
    }
    /// The world whose mounted tree contains this node, or `nil`.
    public internal(set) weak var world: World?
    /// The meter charged for this node and everything it holds; given back when the node goes
    /// away. What is charged is not stored on the node itself (see ``chargedBytes``): the node's
    /// own cost and its responder entries' are known from the node, and the rest (id, extras,
    /// publishers, subscribers, tap actions, host data) is counted in the extras.
    let meter: MemoryMeter?
    /// A second opaque slot for the bridge, without extras (e.g. the index of the node's entry
    /// in the bridge's identity cache). The engine never reads it.
    public var hostKey = 0
    /// What most nodes never set (id, host slot, safety settings, publishers, subscribers, tap
    /// actions), made on first need so that a plain node stays small (see ``cost``).
    private(set) var extras: NodeExtras?

    /// Creates a detached node.
    /// - Parameters:
    ///   - name: The node's name.
    ///   - id: An optional identifier.
    ///   - meter: The meter charged for the node and what it will hold (see ``MemoryMeter``).
    public init(name: String, id: String? = nil, meter: MemoryMeter? = nil) {
        self.name = name
        self.meter = meter
        meter?.charge(ownCost)
        if id != nil { self.id = id }
    }

    /// Estimated bytes of a node object without extras (name 16, parent link, children,
    /// responders, world, meter, extras, host key: 72 bytes stored) and its slot in a parent's
    /// children.
    static let cost = MemoryMeter.Cost.object(72) + MemoryMeter.Cost.arraySlot

    /// What the node itself is charged: ``cost`` and its name's storage.
    private var ownCost: Int { Self.cost + MemoryMeter.Cost.string(name) }

    /// Charges `bytes` kept in the extras (which are made when needed).
    func charge(_ bytes: Int) {
        guard let meter else { return }
        ensureExtras().bytes &+= bytes
        meter.charge(bytes)
    }

    /// Releases `bytes` charged with ``charge(_:)`` (never more than were).
    func release(_ bytes: Int) {
        guard let meter, let extras else { return }
        let amount = min(bytes, extras.bytes)
        extras.bytes &-= amount
        meter.release(amount)
    }

    /// The node's extras, made (and charged) on first need.
    @inline(__always)
    func ensureExtras() -> NodeExtras {
        if let extras { return extras }
        return makeExtras()
    }

    @inline(never)
    private func makeExtras() -> NodeExtras {
        let made = NodeExtras()
        extras = made
        if let meter {
            made.bytes = NodeExtras.cost
            meter.charge(NodeExtras.cost)
        }
        return made
    }

    /// Charges `bytes` that the host keeps for this node (released with the node).
    public func chargeMemory(_ bytes: Int) { charge(bytes) }

    /// Releases `bytes` charged earlier with ``chargeMemory(_:)``.
    public func releaseMemory(_ bytes: Int) { release(bytes) }

    /// The bytes currently charged for this node and what it holds.
    public var chargedBytes: Int {
        guard meter != nil else { return 0 }
        var bytes = ownCost + (extras?.bytes ?? 0)
        for entry in responders { bytes += entry.cost }
        return bytes
    }

    deinit {
        if let meter { meter.release(chargedBytes) }
        // Releasing the children array would release each child, whose deinit releases its own
        // children, and so on: a deep chain would overflow the stack. Instead, every child that
        // is about to die (no other owner) gives its children to one worklist first, so no
        // deinit below this one has children left to release.
        guard !children.isEmpty else { return }
        // (The `Unmanaged` addresses below are only compared with links, never dereferenced.)
        var pending: [Node] = []
        swap(&pending, &children)
        Node.unlinkChildren(pending, from: Unmanaged.passUnretained(self).toOpaque())
        while var node = pending.popLast() {
            guard isKnownUniquelyReferenced(&node), !node.children.isEmpty else { continue }
            let children = node.children
            node.children = []
            Node.unlinkChildren(children, from: Unmanaged.passUnretained(node).toOpaque())
            pending.append(contentsOf: children)
        }
    }

    /// Clears the parent link of each of `children` that points at `parent` (a dying node).
    private static func unlinkChildren(_ children: [Node], from parent: UnsafeMutableRawPointer) {
        for child in children where child.parentLink?.toOpaque() == parent {
            child.parentLink = nil
        }
    }

    /// `Name#id`, or `Name` without an id.
    public var description: String {
        if let id { return "\(name)#\(id)" }
        return name
    }

    /// Whether the node is part of a world's mounted tree.
    public var isMounted: Bool { world != nil }

    /// The safety level in effect here: the nearest setting on this node or an ancestor.
    /// - Parameter defaultLevel: The level when nobody sets one (the world's default).
    public func effectiveSafetyLevel(default defaultLevel: SafetyLevel) -> SafetyLevel {
        var node: Node? = self
        while let current = node {
            if let level = current.safetyLevel { return level }
            node = current.parent
        }
        return defaultLevel
    }

    /// The explicit-responder requirement in effect here (nearest setting; `true` by default).
    public var effectiveRequireExplicit: Bool {
        var node: Node? = self
        while let current = node {
            if let flag = current.requireExplicitResponders { return flag }
            node = current.parent
        }
        return true
    }

    /// ``pathToRoot``, reusing `candidate` when it already is exactly that path (same nodes,
    /// each the parent of the one before, the last a root): checking it reads each link once
    /// and needs no reference counting, while building a new path retains every node.
    func pathToRoot(reusing candidate: [Node]?) -> [Node] {
        guard let candidate, isPathToRoot(candidate) else { return pathToRoot }
        return candidate
    }

    /// Whether `path` is this node's current path to its root.
    private func isPathToRoot(_ path: [Node]) -> Bool {
        path.withUnsafeBufferPointer { buffer in
            let count = buffer.count
            guard count > 0 else { return false }
            let base = buffer.baseAddress.unsafelyUnwrapped
            // Lifetime proof: the nodes are alive (the array holds them), so their links can be
            // compared without retaining them: a link equal to a live node's address is that node.
            guard base[0] === self else { return false }
            var index = 0
            while index < count - 1 {
                guard let link = base[index].parentLink,
                    link.toOpaque() == Unmanaged.passUnretained(base[index + 1]).toOpaque()
                else { return false }
                index += 1
            }
            return base[count - 1].parentLink == nil
        }
    }

    /// The path from this node up to its root, this node first.
    public var pathToRoot: [Node] {
        var count = 1
        var link = parentLink
        while let current = link {
            count += 1
            link = current._withUnsafeGuaranteedRef { $0.parentLink }
        }
        return [Node](unsafeUninitializedCapacity: count) { buffer, initialized in
            var slot = buffer.baseAddress.unsafelyUnwrapped
            slot.initialize(to: self)
            link = parentLink
            while let current = link {
                slot += 1
                slot.initialize(to: current.takeUnretainedValue())
                link = current._withUnsafeGuaranteedRef { $0.parentLink }
            }
            initialized = count
        }
    }
}

/// The parts of a node that most nodes never set, allocated on first need (``Node/ensureExtras()``).
final class NodeExtras {
    var id: String?
    var host = 0
    var safetyLevel: SafetyLevel?
    var requireExplicitResponders: Bool?
    var publishers: [Publisher] = []
    var subscribers: [Subscriber] = []
    var tapActions: [TapAction] = []
    /// The bytes charged for the node's id, these extras and what they hold (see ``Node/charge(_:)``).
    var bytes = 0

    /// Estimated bytes: the object (id 16, host, the two settings, three lists, bytes: 64 bytes stored)
    /// and the side table the weak node links of publishers and subscribers give the node.
    static let cost = MemoryMeter.Cost.object(64) + MemoryMeter.Cost.object(16)
}
