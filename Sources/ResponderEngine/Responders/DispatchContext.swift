/// What a responder body learns about the dispatch it runs in (`ctx` in Lua).
///
/// A context is only valid during the body call it was passed to: it refers to the dispatch
/// without retaining it. Read what you need during the call; do not store the context.
public struct DispatchContext {
    private unowned(unsafe) let trace: Trace
    private let nodeIndex: Int
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
    /// The node where the dispatch started (for a subscriber: the subscriber's node).
    public var origin: Node { trace.path[0] }
    /// The fixed path of the dispatch, origin first, root last.
    ///
    /// For a subscriber: from the subscriber's node to the root.
    public var path: [Node] { trace.path }
    /// The entry being run; `nil` for subscribers.
    public var entry: ResponderEntry? { entryStorage }
    /// The world running the dispatch.
    public var world: World { worldStorage }
}
