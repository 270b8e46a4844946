extension World {
    /// Publishes `event` downward through `publisher`.
    ///
    /// Subscribers whose type is the event's type or an ancestor of it are collected from the
    /// publisher node's subtree (the node included) in document order. A subscriber's level is
    /// 1 + the number of ancestor nodes (below and including the publisher node) that hold a
    /// matching subscriber; subscribers on one node share a level. The destination then selects
    /// levels. A body's `.thrown(error)` is reported from the subscriber's node (a nested
    /// dispatch). The event never bubbles. A top-level publication sets ``lastTrace``.
    /// - Returns: How many subscribers were reached.
    /// - Throws: ``EngineError`` for a wrong value; ``StrictViolation``.
    @discardableResult
    public func publish(
        _ event: Value, through publisher: Publisher,
        location: SourceLocation? = nil
    ) throws -> Int {
        guard event.kind == .event else {
            throw EngineError.wrongKind(function: "publish", expected: .event, got: "error \(event)")
        }
        guard publisher.type.isSame(orAncestorOf: event.type) else {
            throw EngineError.wrongType(
                function: "publish", expected: publisher.type.name,
                got: event.description)
        }
        guard let origin = publisher.node else { return 0 }
        return try nestedDispatch { isTopLevel in
            try publish(event, through: publisher, from: origin, location: location, isTopLevel: isTopLevel)
        }
    }

    private func publish(
        _ event: Value, through publisher: Publisher, from origin: Node,
        location: SourceLocation?, isTopLevel: Bool
    ) throws -> Int {
        var found: [(subscriber: Subscriber, level: Int)] = []
        let visited = Self.collect(event.type, in: origin, level: 0, before: publisher.sequence, into: &found)
        work.charge(visited + found.count)
        let deepest = found.map(\.level).max() ?? 0
        let selected = found.filter { item in
            switch publisher.destination {
            case .allLevels: true
            case .firstLevel: item.level == 1
            case .lastLevel: item.level == deepest
            }
        }.map(\.subscriber)
        // The selected subscribers are fixed when the publication starts, and their nodes are held
        // until it ends: a subscriber (and the bridge's function slot in it, which refers to its
        // node without retaining it) never outlives its node, even when a subscriber drops
        // another's node.
        let nodes = selected.map(\.node)

        var steps: [TraceStep] = []
        defer {
            if isTopLevel {
                let trace = Trace(publication: event, path: [origin], steps: steps)
                trace.charge(to: meter, sharedPath: false)
                lastTrace = trace
            }
        }
        try withExtendedLifetime(nodes) {
            try deliver(event, to: selected, from: origin, location: location, steps: &steps)
        }
        // (one step per subscriber called: one removed during the publication is not counted)
        return steps.count
    }

    /// Calls each subscriber's body, recording a step per subscriber; errors they raise are
    /// reported from their node.
    private func deliver(
        _ event: Value, to selected: [Subscriber], from origin: Node, location: SourceLocation?,
        steps: inout [TraceStep]
    ) throws {
        for subscriber in selected {
            guard !subscriber.isRemoved, let node = subscriber.node else { continue }
            // the position in `node:responders()`, which lists subscribers after the responder entries
            let index = node.responders.count + (node.subscribers.firstIndex { $0 === subscriber } ?? -1) + 1
            // `once`: removed just before it runs, as a once responder is
            if subscriber.once { node.removeSubscriber(subscriber) }
            var step = TraceStep(
                node: node, index: index, responder: subscriber.label,
                filter: subscriber.type, value: event, decision: .handled)
            let scope = Trace(publication: event, path: Self.publicationPath(from: origin, to: node), steps: [])
            work.charge(scope.path.count)
            let result = subscriber.body(
                event,
                DispatchContext(
                    trace: scope, nodeIndex: scope.path.count - 1, entry: nil,
                    world: self))
            if pendingAbort != nil { subscriber.stats?.note(.threw) }
            try checkPendingAbort()
            // a subscriber's result reads as a handleEvent's: only a raise or an abort counts
            switch ResponderKind.handleEvent.outcome(of: result) {
            case .aborted:
                subscriber.stats?.note(.threw)
                steps.append(step)
                throw EngineError.aborted
            case .raised(let error):
                subscriber.stats?.note(.threw)
                step.decision = .threw
                step.result = error
                steps.append(step)
                if error.kind == .error {
                    try report(error, from: node, location: location)
                } else {
                    let message = "\(subscriber.label) raised \(error), which is not an error"
                    try report(makeRuntimeError(message, node), from: node, location: location)
                }
            default:
                subscriber.stats?.note(.handled)
                steps.append(step)
            }
        }
    }

    /// The way a publication went from the publisher's node `origin` down to the subscriber's
    /// `node`, origin first (a subscriber's `ctx.path`; `ctx.origin` is where the publication
    /// started, SPEC §2.4). When an earlier subscriber moved `node` out of `origin`'s subtree,
    /// `[origin, node]`.
    static func publicationPath(from origin: Node, to node: Node) -> [Node] {
        var path: [Node] = []
        var current: Node? = node
        while let n = current {
            path.append(n)
            if n === origin { return path.reversed() }
            current = n.parent
        }
        return node === origin ? [origin] : [origin, node]
    }

    /// On `root` itself only subscribers registered before the publisher (`sequence` below
    /// `before`) count: the position rule of SPEC §2.3 applied to §2.7.
    /// Returns the number of nodes and subscribers it visited.
    private static func collect(
        _ type: ValueType, in root: Node, level: Int, before: Int,
        into found: inout [(subscriber: Subscriber, level: Int)]
    ) -> Int {
        var visited = 0
        // iterative pre-order walk (any depth); each node's level is its parent's, plus one
        // when the node has a matching subscriber
        var stack: [(node: Node, level: Int)] = [(root, level)]
        while let (node, parentLevel) = stack.popLast() {
            var level = parentLevel
            var matched = false
            visited += 1 + node.subscribers.count
            for subscriber in node.subscribers where subscriber.type.isSame(orAncestorOf: type) {
                if node === root && subscriber.sequence >= before { continue }
                if !matched {
                    matched = true
                    level += 1
                }
                found.append((subscriber, level))
            }
            let children = node.children
            var index = children.count
            while index > 0 {
                index -= 1
                stack.append((children[index], level))
            }
        }
        return visited
    }
}
