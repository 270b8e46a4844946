/// What a responder body learns about the dispatch it runs in (`ctx` in Lua).
///
/// A context is only valid during the body call it was passed to: it refers to the dispatch
/// without retaining it. Read what you need during the call; do not store the context (copy
/// ``path`` and ``nodeIndex`` to keep them, as the Lua bridge's `ctx` does).
public struct DispatchContext {
    // Lifetime proof for the three unowned(unsafe) references: a context exists only as the
    // argument of a body call made by the dispatcher (or by `Publisher.publish`), which holds the
    // trace, the entry (in the trace's snapshot) and the world for the whole call; Lua never holds
    // a context (its `ctx` is a `ContextBox` that copies the path strongly). Test: the
    // "ctx outlives its dispatch" specs in scripts/tests/safety/lifetimes_spec.lua.
    private unowned(unsafe) let trace: Trace
    /// The index in ``path`` of the node the responder (or subscriber) is registered on.
    public let nodeIndex: Int
    private unowned(unsafe) let entryStorage: ResponderEntry?
    private unowned(unsafe) let worldStorage: World

    init(trace: Trace, nodeIndex: Int, entry: ResponderEntry?, world: World) {
        self.trace = trace
        self.nodeIndex = nodeIndex
        self.entryStorage = entry
        self.worldStorage = world
    }

    /// The node the responder (or subscriber) is registered on.
    public var node: Node { trace.path[nodeIndex] }
    /// The node where the dispatch started (for a subscriber: the publisher's node).
    public var origin: Node { trace.path[0] }
    /// The fixed path of the dispatch, origin first, root last.
    ///
    /// For a subscriber: the way the publication went, from the publisher's node down to the
    /// subscriber's node (published events never bubble).
    public var path: [Node] { trace.path }
    /// The entry being run; `nil` for subscribers.
    public var entry: ResponderEntry? { entryStorage }
    /// The world running the dispatch.
    public var world: World { worldStorage }
}
