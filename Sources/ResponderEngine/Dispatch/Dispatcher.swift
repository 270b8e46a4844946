/// Walks one value up a fixed path: the only propagation loop of the engine.
///
/// Per visited entry it does a kind check, a removed check, a filter check and appends a
/// compact ``StepRecord``; nothing else is allocated until a body is called.
struct Dispatcher {
    /// How a dispatch ended.
    enum End {
        case handled(Node, ResponderEntry)
        case unhandled
    }

    /// Lifetime proof: a dispatcher is a local of `World.dispatch`, a method of this world, and
    /// never escapes it. Test: any dispatch, e.g. "ctx outlives its dispatch" in
    /// scripts/tests/safety/lifetimes_spec.lua (which resets the world between dispatches).
    unowned(unsafe) let world: World
    let trace: Trace
    private(set) var value: Value
    private var kind: ValueKind
    private var valueIndex: Int32 = 0

    init(world: World, value: Value, origin: Node) {
        self.world = world
        self.value = value
        self.kind = value.type.kind
        // Repeated dispatches from one node share the last trace's path array while the tree
        // above the node is unchanged (checked link by link), instead of retaining every node
        // again; either way the path is the origin's path to the root as the dispatch starts.
        self.trace = Trace(
            kind: kind == .event ? .event : .error, initialValue: value,
            path: origin.pathToRoot(reusing: world.lastTrace?.path))
    }

    /// The fixed path, origin first.
    var path: [Node] { trace.path }

    /// Whether the path is the same array as `other`'s path (reused, not a copy).
    func sharesPath(with other: Trace?) -> Bool {
        guard let other else { return false }
        return trace.path.withUnsafeBufferPointer { mine in
            other.path.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
    }

    @inline(__always)
    private func record(_ node: Int32, _ entry: Int32, _ decision: Decision, result: Int32 = -1) {
        trace.record(
            StepRecord(
                node: node, entry: entry, value: valueIndex, result: result,
                decision: decision))
    }

    private func store(_ newValue: Value) -> Int32 {
        trace.store(newValue)
    }

    /// Walks the path. Throws ``StrictViolation`` (or ``EngineError/aborted``) to unwind.
    mutating func run() throws -> End {
        // Lifetime proof: the path (a local copy of `trace.path`) keeps nodes alive and the trace
        // keeps the snapshot of each list it visits, so the loop holds nodes and entries without
        // reference counting even when a responder removes entries or nodes. Test: "responders
        // removed while their trace is kept" and "a responder that dismantles its tree" in
        // scripts/tests/safety/lifetimes_spec.lua.
        let path = trace.path
        var nodeIndex = 0
        var typeChain = value.type.chain
        var typeDepth = value.type.depth
        while nodeIndex < path.count {
            unowned(unsafe) let node = path[nodeIndex]
            let count = node.responders.count
            // An empty list has nothing to visit or record: no snapshot.
            if count == 0 {
                nodeIndex += 1
                continue
            }
            // The trace owns the list from here on; its buffer is never mutated (a change to
            // the node's list copies it), so the elements can be read through a raw pointer.
            let entries = trace.takeSnapshot(node.responders, of: nodeIndex)
            let n32 = Int32(truncatingIfNeeded: nodeIndex)
            var position = 0
            while position < count {
                unowned(unsafe) let entry = entries[position]
                let p32 = Int32(truncatingIfNeeded: position)
                position += 1
                if entry.accepts != kind || entry.isRemoved { continue }
                if let filter = entry.filterIdentity,
                    entry.filterDepth > typeDepth || typeChain[entry.filterDepth] != filter
                {
                    record(n32, p32, .skipped)
                    entry.stats?.skipped += 1
                    continue
                }
                switch entry.kind {
                case .triggers, .reports:
                    entry.stats?.noteDeclared(value.type)
                    if world.declarationCovers(
                        entry, on: node, before: trace.currentSnapshot[..<(position - 1)],
                        value: value)
                    {
                        record(n32, p32, .declared)
                    } else {
                        record(n32, p32, .undeclared)
                        try world.reportUndeclared(entry, on: node, value: value)
                    }
                    continue
                case .handleAlertErrors:
                    guard value.type.isAlertable else {
                        record(n32, p32, .passed)
                        entry.stats?.note(.passed)
                        continue
                    }
                    if entry.once { node.removeResponder(entry) }
                    world.presentAlert(for: value, at: node)
                    record(n32, p32, .handled)
                    entry.stats?.note(.handled)
                    return .handled(node, entry)
                default:
                    break
                }
                if entry.once { node.removeResponder(entry) }
                let result = call(entry, at: nodeIndex)
                // (tested before it is read: binding the optional would copy the violation at
                // every call)
                if world.pendingAbort != nil {
                    record(n32, p32, .threw)  // the step that was running when the abort came
                    throw StrictViolation(world.pendingAbort!)
                }
                let consumed = try apply(result, of: entry, at: node, n32, p32)
                if let stats = entry.stats { stats.note(trace.lastDecision) }
                if consumed { return .handled(node, entry) }
                typeChain = value.type.chain
                typeDepth = value.type.depth
            }
            nodeIndex += 1
        }
        record(Int32(truncatingIfNeeded: path.count - 1), -1, .unhandled)
        return .unhandled
    }

    private func call(_ entry: ResponderEntry, at nodeIndex: Int) -> ResponderResult {
        guard let body = entry.body else {
            // no body: a handle consumes, a transform passes the value on unchanged
            return entry.kind == .transformEvent || entry.kind == .transformError ? .value(value) : .nothing
        }
        return body(
            value,
            DispatchContext(
                trace: trace, nodeIndex: nodeIndex, entry: entry,
                world: world))
    }

    /// Applies a body's result as ``ResponderKind/outcome(of:)`` reads it; returns `true` when
    /// the value was consumed.
    private mutating func apply(
        _ result: ResponderResult, of entry: ResponderEntry, at node: Node,
        _ n32: Int32, _ p32: Int32
    ) throws -> Bool {
        switch entry.kind.outcome(of: result) {
        case .aborted:
            record(n32, p32, .threw)  // the step that was running when a limit or abort came
            throw EngineError.aborted
        case .raised(let error):
            raise(error, by: entry, at: node, n32, p32)
            return false
        case .consumed:
            record(n32, p32, .handled)
            return true
        case .passed:
            record(n32, p32, .passed)
            return false
        case .replaced(let newValue):
            let index = store(newValue)
            record(n32, p32, newValue.kind == kind ? .transformed : .caught, result: index)
            value = newValue
            valueIndex = index
            kind = newValue.kind
            return false
        case .wrong(let expected):
            // located at the line that registered the responder: the wiring to fix
            let message =
                entry.location.map { "\($0): \(entry.kind.rawValue) registered here" }
                ?? "\(entry.kind.rawValue) at \(node)"
            let text = "\(message) returned \(result.described) (\(expected) expected)"
            raise(world.makeRuntimeError(text, node), by: entry, at: node, n32, p32)
            return false
        }
    }

    /// A body raised `error`: it starts at the next entry (replacing a current error, which
    /// becomes its cause).
    private mutating func raise(
        _ error: Value, by entry: ResponderEntry, at node: Node,
        _ n32: Int32, _ p32: Int32
    ) {
        var error = error
        if error.kind != .error {
            error = world.makeRuntimeError("\(entry.label) raised \(error), which is not an error", node)
        }
        if kind == .error { error = error.replacing(value) }
        let index = store(error)
        record(n32, p32, .threw, result: index)
        value = error
        valueIndex = index
        kind = .error
    }
}
