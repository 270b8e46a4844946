extension World {
    /// Check 3: whether `value`, passing the declaration `entry` on `node`, is covered by one of
    /// the entry's types, by an earlier declaration of the same kind on the same node, or by a
    /// declaration of the same kind anywhere in the node's subtree below (subtypes match).
    func declarationCovers(
        _ entry: ResponderEntry, on node: Node,
        before earlier: ArraySlice<ResponderEntry>, value: Value
    ) -> Bool {
        let type = value.type
        if Self.covers(entry, type) { return true }
        for other in earlier where other.kind == entry.kind && !other.isRemoved {
            if Self.covers(other, type) { return true }
        }
        for child in node.children where Self.subtreeDeclares(child, entry.kind, type) {
            return true
        }
        return false
    }

    /// Reports check 3's violation: `value` passed `entry` on `node` undeclared.
    func reportUndeclared(_ entry: ResponderEntry, on node: Node, value: Value) throws {
        if violationsDisabled(at: node) { return }
        let kind: ViolationKind = entry.kind == .triggers ? .undeclaredEvent : .undeclaredError
        let message = "undeclared \(value.kind) \(value) passed \(entry.label) at \(node)"
        try reportViolation(
            Violation(
                kind: kind, message: message, node: node, value: value,
                location: entry.location))
    }

    private static func covers(_ entry: ResponderEntry, _ type: ValueType) -> Bool {
        entry.declared.contains { $0.isSame(orAncestorOf: type) }
    }

    private static func subtreeDeclares(_ root: Node, _ kind: ResponderKind, _ type: ValueType) -> Bool {
        var stack: [Node] = [root]
        while let node = stack.popLast() {
            for entry in node.responders where entry.kind == kind && covers(entry, type) {
                return true
            }
            stack.append(contentsOf: node.children)
        }
        return false
    }

    /// Runs checks 4 and 5 for every node of `subtree`, in document order.
    func runMountChecks(in subtree: Node) throws {
        try subtree.forEachInSubtree { node in
            try checkExplicitResponders(of: node)
            try checkSubscribers(of: node)
        }
    }

    /// Check 4: each type declared on `node` needs a typed responder of the matching kind
    /// (receive, handle, transform, or `catchError` for errors) whose filter is the type or an
    /// ancestor type, at a later position on `node` or anywhere on an ancestor. Skipped when
    /// explicit responders are not required at `node`. One violation per missing type, however
    /// often the node declares it (`triggers(A, A)` gave two: found by an acceptance probe).
    func checkExplicitResponders(of node: Node) throws {
        guard node.responders.contains(where: { $0.kind.isDeclaration }),
            node.effectiveRequireExplicit, !violationsDisabled(at: node)
        else { return }
        var reported: [ValueType] = []
        for (position, entry) in node.responders.enumerated() where entry.kind.isDeclaration {
            for type in entry.declared
            where !reported.contains(where: { $0 === type })
                && !Self.hasExplicitResponder(for: type, on: node, after: position)
            {
                reported.append(type)
                let message =
                    "missing responder: \(node) declares \(entry.label) but no typed "
                    + "responder for \(type.name) is above it"
                try reportViolation(
                    Violation(
                        kind: .missingResponder, message: message, node: node,
                        location: entry.location, type: type))
            }
        }
    }

    private static func hasExplicitResponder(for type: ValueType, on node: Node, after position: Int) -> Bool {
        func satisfies(_ entry: ResponderEntry) -> Bool {
            // `handleAlertErrors` presents every alertable error: it answers for them (SPEC §2.5)
            if entry.kind == .handleAlertErrors && type.isAlertable && !entry.isRemoved { return true }
            guard entry.kind.isExplicitCandidate, entry.accepts == type.kind,
                let filter = entry.filter
            else { return false }
            return filter.isSame(orAncestorOf: type)
        }
        if node.responders[(position + 1)...].contains(where: satisfies) { return true }
        var ancestor = node.parent
        while let current = ancestor {
            if current.responders.contains(where: satisfies) { return true }
            ancestor = current.parent
        }
        return false
    }

    /// Check 5: each subscriber on `node` needs a publisher that can reach it on an ancestor, or
    /// on `node` itself registered after the subscriber (the position rule): one for its type or
    /// an ancestor type (which may publish values of the subscriber's type), or for a subtype
    /// (whose values the subscriber's filter matches; it was flagged though it delivered: found
    /// by an acceptance probe).
    func checkSubscribers(of node: Node) throws {
        guard !node.subscribers.isEmpty, !violationsDisabled(at: node) else { return }
        for subscriber in node.subscribers {
            var candidate: Node? = node
            var found = false
            while let current = candidate, !found {
                found = current.publishers.contains {
                    ($0.type.isSame(orAncestorOf: subscriber.type) || subscriber.type.isSame(orAncestorOf: $0.type))
                        && (current !== node || $0.sequence > subscriber.sequence)
                }
                candidate = current.parent
            }
            guard !found else { continue }
            let message = "subscriber for \(subscriber.type.name) at \(node) has no publisher above it"
            try reportViolation(
                Violation(
                    kind: .subscriberWithoutPublisher, message: message,
                    node: node, location: subscriber.location, type: subscriber.type))
        }
    }
}
