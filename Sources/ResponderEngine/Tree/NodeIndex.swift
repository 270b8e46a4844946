/// Nodes by id, so that `#id` selectors need not scan a subtree.
///
/// The index holds its nodes weakly: it never keeps a node alive. A node is added with
/// ``register(_:)`` when its id is set (again after every change of id); lookups check each
/// candidate's current id, so stale entries are harmless, and dead ones are swept as the index
/// grows.
public final class NodeIndex {
    private struct Entry {
        weak var node: Node?
    }

    private var byID: [String: [Entry]] = [:]
    private var entryCount = 0
    private var sweepAt = 1024

    /// Creates an empty index.
    public init() {}

    /// Records `node` under its current id (nothing when it has none).
    public func register(_ node: Node) {
        guard let id = node.id else { return }
        byID[id, default: []].append(Entry(node: node))
        entryCount += 1
        if entryCount >= sweepAt { sweep() }
    }

    /// The live nodes whose id is `id` now.
    func nodes(withID id: String) -> [Node] {
        guard let entries = byID[id] else { return [] }
        var found: [Node] = []
        for entry in entries {
            if let node = entry.node, node.id == id, !found.contains(where: { $0 === node }) {
                found.append(node)
            }
        }
        return found
    }

    /// Drops entries of dead nodes and of nodes whose id changed.
    private func sweep() {
        var kept: [String: [Entry]] = [:]
        var count = 0
        for (id, entries) in byID {
            let live = entries.filter { $0.node?.id == id }
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
