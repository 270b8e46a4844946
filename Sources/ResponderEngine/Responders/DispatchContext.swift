/// What a responder body learns about the dispatch it runs in (`ctx` in Lua).
public struct DispatchContext {
    /// The node the responder is registered on.
    public let node: Node
    /// The node where the dispatch started.
    public let origin: Node
    /// The fixed path of the dispatch, origin first, root last. Shared, not copied, per call.
    public let path: [Node]
    /// The entry being run.
    public let entry: ResponderEntry
    /// The world running the dispatch.
    public unowned let world: World
}
