extension World {
    /// Makes `root` the application's tree.
    ///
    /// A previously mounted tree is unmounted first (disappear hooks). Then every node of the
    /// new tree gets its ``appearHook`` call in document order, and the declaration checks run:
    /// missing explicit responders (check 4) and subscribers without publisher (check 5).
    /// - Throws: ``EngineError/notARoot(node:)`` when `root` has a parent; ``StrictViolation``;
    ///   errors thrown by ``appearHook``.
    public func mount(_ root: Node) throws {
        try beginAction()
        defer { endAction() }
        guard root.parent == nil else { throw EngineError.notARoot(node: root.description) }
        if let old = self.root { unmountSubtree(old, moving: false) }
        if let other = root.world, other !== self { other.root = nil }
        self.root = root
        try mountSubtree(root, moving: false)
        try checkPendingAbort()
    }

    /// Moves `child` under `parent` (used by ``Node/add(_:at:)`` when either is mounted).
    func move(_ child: Node, to parent: Node, at position: Int?) throws {
        try beginAction()
        defer { endAction() }
        let oldParent = child.parent
        // a move within the mounted tree: its hooks can tell it from a removal (``isMoving``)
        let moving = child.world === self && parent.world === self
        if child.world === self {
            unmountSubtree(child, moving: moving)
            if root === child { root = nil }
        } else if let other = child.world {
            other.detach(child)
        }
        parent.attach(child, at: position)
        if let oldParent, oldParent.world === self { structureDidChange?(oldParent) }
        guard parent.world === self else { return }
        try mountSubtree(child, moving: moving)
        structureDidChange?(parent)
        try checkPendingAbort()
    }

    /// Detaches a mounted node from its parent (used by ``Node/remove()``).
    func detach(_ node: Node) {
        let parent = node.parent
        unmountSubtree(node, moving: false)
        node.detachFromParent()
        if root === node { root = nil }
        if let parent, parent.world === self { structureDidChange?(parent) }
    }

    /// Mounts `subtree` and runs its appear hooks: each node of the subtree as it is now, once,
    /// in document order. Nodes an appear handler adds (or moves) appear through their own
    /// addition, once, and are skipped when this walk reaches them; nodes a handler removed
    /// before their turn do not appear.
    private func mountSubtree(_ subtree: Node, moving: Bool) throws {
        let nodes = subtree.subtreeNodes()
        // the walk finishes (the tree must stay consistent): its work is only charged
        work.charge(nodes.count)
        for node in nodes { node.world = self }
        if let appearHook {
            let nested = appearWalks > 0
            appearWalks += 1
            let outerMoving = isMoving
            isMoving = moving
            defer {
                appearWalks -= 1
                if appearWalks == 0 { appearedInNestedWalks = [] }
                isMoving = outerMoving
            }
            for node in nodes where node.world === self {
                let id = ObjectIdentifier(node)
                if nested {
                    guard appearedInNestedWalks.insert(id).inserted else { continue }
                } else if appearedInNestedWalks.contains(id) {
                    continue
                }
                try appearHook(node)
            }
        }
        try runMountChecks(in: subtree)
    }

    /// Runs the disappear hooks of `subtree` (each node once, document order, skipping nodes a
    /// handler already unmounted) and unmounts it.
    private func unmountSubtree(_ subtree: Node, moving: Bool) {
        var tally = WorkTally(work)
        defer { tally.finish() }
        if let disappearHook {
            let nodes = subtree.subtreeNodes()
            _ = tally.add(nodes.count)
            let outerMoving = isMoving
            isMoving = moving
            defer { isMoving = outerMoving }
            for node in nodes where node.world === self {
                disappearHook(node)
            }
        }
        // a node added again later in the same appear walk appears again
        let forget = appearWalks > 0 && !appearedInNestedWalks.isEmpty
        subtree.forEachInSubtree { node in
            _ = tally.step()
            node.world = nil
            if forget { appearedInNestedWalks.remove(ObjectIdentifier(node)) }
        }
    }
}
