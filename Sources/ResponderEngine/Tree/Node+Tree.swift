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
        try forEachInSubtreeUntil { node in
            try body(node)
            return false
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
    ///   - work: Charged one unit per node visited (and per step up the tree for indexed
    ///     candidates). When it says stop, the search ends early and returns `nil`.
    public func find(_ selector: String, index: NodeIndex? = nil, work: WorkMeter? = nil) -> Node? {
        let parsed = Selector(selector)
        var tally = WorkTally(work)
        defer { tally.finish() }
        if let id = parsed.id, let index {
            var best: Node?
            var stopped = false
            index.forEachNode(withID: id) { candidate in
                if tally.add(1) {
                    stopped = true
                    return true
                }
                guard parsed.matches(candidate) else { return false }
                var steps = 0
                let inside = candidate.isDescendant(of: self, steps: &steps)
                if tally.add(steps) {
                    stopped = true
                    return true
                }
                guard inside else { return false }
                if let current = best {
                    // the comparison walks both paths to the root
                    if tally.add(2 * steps) {
                        stopped = true
                        return true
                    }
                    if !candidate.precedes(current) { return false }
                }
                best = candidate
                return false
            }
            return stopped ? nil : best
        }
        var found: Node?
        forEachInSubtreeUntil { node in
            if tally.step() { return true }
            guard parsed.matches(node) else { return false }
            found = node
            return true
        }
        return tally.finish() ? nil : found
    }

    /// ``forEachInSubtree(_:)`` that stops when `body` returns true.
    ///
    /// The walk is iterative (any depth). A node's children are read after `body` ran for it.
    private func forEachInSubtreeUntil(_ body: (Node) throws -> Bool) rethrows {
        if try body(self) { return }
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
            if try body(node) { return }
            let children = node.children
            if !children.isEmpty { frames.append((children, 0)) }
        }
    }

    /// Every node of the subtree (this node included) matching `selector`, in document order.
    /// - Parameters:
    ///   - selector: `Name`, `#id` or `Name#id`.
    ///   - work: Charged one unit per node visited. When it says stop, the search ends early
    ///     and returns what it found so far (the host raises its limit).
    public func findAll(_ selector: String, work: WorkMeter? = nil) -> [Node] {
        let parsed = Selector(selector)
        var tally = WorkTally(work)
        var found: [Node] = []
        forEachInSubtreeUntil { node in
            if tally.step() { return true }
            if parsed.matches(node) { found.append(node) }
            return false
        }
        tally.finish()
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
        var steps = 0
        return isDescendant(of: other, steps: &steps)
    }

    /// ``isDescendant(of:)`` that adds the links it followed to `steps`.
    public func isDescendant(of other: Node, steps: inout Int) -> Bool {
        var node: Node? = self
        while let current = node {
            if current === other { return true }
            steps += 1
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
