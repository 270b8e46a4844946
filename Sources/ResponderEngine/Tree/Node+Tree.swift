extension Node {
    /// Appends or inserts `child`, moving it from its previous parent.
    ///
    /// When this node is mounted the world runs the new subtree's appear hooks and the
    /// declaration checks (and the disappear hooks of a child that leaves a mounted tree).
    /// - Parameters:
    ///   - child: The node to add.
    ///   - position: 0-based insertion index (clamped); `nil` appends.
    /// - Throws: ``EngineError/cycle`` when `child` is this node or one of its ancestors;
    ///   ``StrictViolation`` when a check fails under strict safety; errors of world hooks.
    public func add(_ child: Node, at position: Int? = nil) throws {
        // a node without children cannot be an ancestor of this one: skip the walk to the root
        if child === self || (!child.children.isEmpty && isDescendant(of: child)) { throw EngineError.cycle }
        if let world = world ?? child.world {
            try world.move(child, to: self, at: position)
        } else {
            attach(child, at: position)
        }
    }

    /// Detaches this node from its parent. When it was mounted, the world runs the subtree's
    /// disappear hooks. Does nothing for a root.
    public func remove() {
        guard parent != nil else { return }
        if let world {
            world.detach(self)
        } else {
            detachFromParent()
        }
    }

    /// Links `child` under this node without any world bookkeeping.
    func attach(_ child: Node, at position: Int?) {
        child.detachFromParent()
        let index = min(max(position ?? children.count, 0), children.count)
        children.insert(child, at: index)
        child.parent = self
    }

    /// Unlinks this node from its parent without any world bookkeeping.
    func detachFromParent() {
        guard let parent else { return }
        if let index = parent.children.firstIndex(where: { $0 === self }) {
            parent.children.remove(at: index)
        }
        self.parent = nil
    }

    /// Calls `body` for this node and every descendant, in document order (pre-order).
    ///
    /// The walk is iterative (any depth). A node's children are read after `body` ran for it.
    public func forEachInSubtree(_ body: (Node) throws -> Void) rethrows {
        try body(self)
        // one frame per level: the children array (as read after `body` ran for its parent)
        // and the position of the next child to visit
        var frames: [(children: [Node], next: Int)] = []
        if !children.isEmpty { frames.append((children, 0)) }
        while let top = frames.indices.last {
            let position = frames[top].next
            guard position < frames[top].children.count else {
                frames.removeLast()
                continue
            }
            frames[top].next = position + 1
            let node = frames[top].children[position]
            try body(node)
            let children = node.children
            if !children.isEmpty { frames.append((children, 0)) }
        }
    }

    /// This node and every descendant, in document order.
    public func subtreeNodes() -> [Node] {
        var nodes: [Node] = []
        forEachInSubtree { nodes.append($0) }
        return nodes
    }

    /// The first node of the subtree (this node included) matching `selector`, in document order.
    /// - Parameters:
    ///   - selector: `Name`, `#id` or `Name#id`.
    ///   - index: An index holding every node with an id that could be in the subtree: an `#id`
    ///     selector then looks the id up instead of scanning the subtree.
    public func find(_ selector: String, index: NodeIndex? = nil) -> Node? {
        let parsed = Selector(selector)
        if let id = parsed.id, let index {
            var best: Node?
            for candidate in index.nodes(withID: id)
            where parsed.matches(candidate) && candidate.isDescendant(of: self) {
                if let current = best, !candidate.precedes(current) { continue }
                best = candidate
            }
            return best
        }
        var found: Node?
        forEachInSubtreeUntil { node in
            guard parsed.matches(node) else { return false }
            found = node
            return true
        }
        return found
    }

    /// ``forEachInSubtree(_:)`` that stops when `body` returns true.
    private func forEachInSubtreeUntil(_ body: (Node) -> Bool) {
        if body(self) { return }
        var frames: [(children: [Node], next: Int)] = []
        if !children.isEmpty { frames.append((children, 0)) }
        while let top = frames.indices.last {
            let position = frames[top].next
            guard position < frames[top].children.count else {
                frames.removeLast()
                continue
            }
            frames[top].next = position + 1
            let node = frames[top].children[position]
            if body(node) { return }
            let children = node.children
            if !children.isEmpty { frames.append((children, 0)) }
        }
    }

    /// Every node of the subtree (this node included) matching `selector`, in document order.
    /// - Parameter selector: `Name`, `#id` or `Name#id`.
    public func findAll(_ selector: String) -> [Node] {
        let parsed = Selector(selector)
        var found: [Node] = []
        forEachInSubtree { if parsed.matches($0) { found.append($0) } }
        return found
    }

    /// Whether this node comes before `other` in document order (both in one tree).
    func precedes(_ other: Node) -> Bool {
        if self === other { return false }
        let mine = Array(pathToRoot.reversed())
        let theirs = Array(other.pathToRoot.reversed())
        var depth = 0
        while depth < mine.count, depth < theirs.count, mine[depth] === theirs[depth] { depth += 1 }
        // an ancestor comes first
        if depth == mine.count { return true }
        if depth == theirs.count || depth == 0 { return false }
        let siblings = mine[depth - 1].children
        let a = siblings.firstIndex { $0 === mine[depth] } ?? 0
        let b = siblings.firstIndex { $0 === theirs[depth] } ?? 0
        return a < b
    }

    /// The path from the root down to this node, e.g. `Root > Grid > Item#b`.
    public func path() -> String {
        pathToRoot.reversed().map(\.description).joined(separator: " > ")
    }

    /// Whether `other` is this node or one of its ancestors.
    public func isDescendant(of other: Node) -> Bool {
        var node: Node? = self
        while let current = node {
            if current === other { return true }
            node = current.parent
        }
        return false
    }
}

/// A parsed `Name`, `#id` or `Name#id` selector.
struct Selector {
    let name: String?
    let id: String?

    init(_ text: String) {
        if let hash = text.firstIndex(of: "#") {
            let name = text[..<hash]
            self.name = name.isEmpty ? nil : String(name)
            self.id = String(text[text.index(after: hash)...])
        } else {
            self.name = text
            self.id = nil
        }
    }

    func matches(_ node: Node) -> Bool {
        if let name, node.name != name { return false }
        if let id, node.id.map({ $0 != id }) ?? true { return false }
        return true
    }
}
