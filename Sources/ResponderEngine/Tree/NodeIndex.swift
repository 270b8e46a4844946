/// Nodes by id, so that `#id` selectors need not scan a subtree.
///
/// The index never keeps a node alive and puts nothing on the node (a weak reference would give
/// every node with an id a side table and slow down all its reference counting): it records
/// addresses, and the host turns an address back into a node only while that node is alive
/// (the Lua bridge asks its identity cache, whose entries exist only while the node's userdata
/// retains the node). A node is added with ``register(_:)`` when its id is set (again after every
/// change of id); lookups check each candidate's current id, so stale entries are harmless, and
/// dead ones are swept as the index grows.
public final class NodeIndex {
    private var byID: [String: [UnsafeMutableRawPointer]] = [:]
    private var entryCount = 0
    private var sweepAt = 1024
    private let resolve: (UnsafeMutableRawPointer) -> Node?

    /// Creates an empty index.
    /// - Parameter resolve: The live node at a registered address, or `nil` when it is gone.
    ///   It must never return a node that merely reuses the address of a registered one that
    ///   died (for example: answer only for nodes the host itself keeps track of).
    public init(resolve: @escaping (UnsafeMutableRawPointer) -> Node?) {
        self.resolve = resolve
    }

    /// Records `node` under its current id (nothing when it has none).
    public func register(_ node: Node) {
        guard let id = node.id else { return }
        byID[id, default: []].append(Unmanaged.passUnretained(node).toOpaque())
        entryCount += 1
        if entryCount >= sweepAt { sweep() }
    }

    /// Calls `body` with each live node whose id is `id` now, each once, in registration order;
    /// stops when `body` returns `true`. Allocates nothing unless the id has more than
    /// ``smallDuplicateScan`` entries (then a set skips repeated addresses).
    func forEachNode(withID id: String, _ body: (Node) -> Bool) {
        guard let entries = byID[id] else { return }
        if entries.count <= NodeIndex.smallDuplicateScan {
            for (i, key) in entries.enumerated() where !entries[..<i].contains(key) {
                if let node = resolve(key), node.id == id, body(node) { return }
            }
            return
        }
        var seen = Set<UnsafeMutableRawPointer>()
        for key in entries where seen.insert(key).inserted {
            if let node = resolve(key), node.id == id, body(node) { return }
        }
    }

    /// Up to this many entries for one id, repeats are found by a scan instead of a set.
    static let smallDuplicateScan = 8

    /// Drops entries of dead nodes and of nodes whose id changed.
    private func sweep() {
        var kept: [String: [UnsafeMutableRawPointer]] = [:]
        var count = 0
        for (id, entries) in byID {
            var live: [UnsafeMutableRawPointer] = []
            var seen = Set<UnsafeMutableRawPointer>()
            for key in entries where seen.insert(key).inserted && resolve(key)?.id == id {
                live.append(key)
            }
            if !live.isEmpty {
                kept[id] = live
                count += live.count
            }
        }
        byID = kept
        entryCount = count
        sweepAt = max(1024, count * 2)
    }
}
