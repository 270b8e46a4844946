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
        if let old = self.root { unmountSubtree(old) }
        if let other = root.world, other !== self { other.root = nil }
        self.root = root
        try mountSubtree(root)
        try checkPendingAbort()
    }

    /// Moves `child` under `parent` (used by ``Node/add(_:at:)`` when either is mounted).
    func move(_ child: Node, to parent: Node, at position: Int?) throws {
        try beginAction()
        defer { endAction() }
        let oldParent = child.parent
        if child.world === self {
            unmountSubtree(child)
            if root === child { root = nil }
        } else if let other = child.world {
            other.detach(child)
        }
        parent.attach(child, at: position)
        if let oldParent, oldParent.world === self { structureDidChange?(oldParent) }
        guard parent.world === self else { return }
        try mountSubtree(child)
        structureDidChange?(parent)
        try checkPendingAbort()
    }

    /// Detaches a mounted node from its parent (used by ``Node/remove()``).
    func detach(_ node: Node) {
        let parent = node.parent
        unmountSubtree(node)
        node.detachFromParent()
        if root === node { root = nil }
        if let parent, parent.world === self { structureDidChange?(parent) }
    }

    private func mountSubtree(_ subtree: Node) throws {
        subtree.forEachInSubtree { $0.world = self }
        if let appearHook {
            try subtree.forEachInSubtree { try appearHook($0) }
        }
        try runMountChecks(in: subtree)
    }

    private func unmountSubtree(_ subtree: Node) {
        if let disappearHook {
            subtree.forEachInSubtree { disappearHook($0) }
        }
        subtree.forEachInSubtree { $0.world = nil }
    }
}
