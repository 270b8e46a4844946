/// Something a node does when tapped (``World/tap(_:count:location:)``).
public struct TapAction {
    /// What happens on a tap.
    public enum Action {
        /// Trigger this event from the tapped node.
        case trigger(Value)
        /// Produce an event at each tap and trigger it from the tapped node.
        case triggerProduced(() throws -> Value)
        /// Run a closure (for example a Lua function).
        case perform(() throws -> Void)
    }

    /// The number of taps this action answers to.
    public var count: Int
    /// What happens.
    public var action: Action
    /// An optional identifier, for ``Node/removeTapAction(id:)``.
    public var id: String?
    /// Whether pictures leave it out: a host's own plumbing (a control's input, which pictures
    /// show as the control's dispatch table instead).
    public var isHidden: Bool

    /// Estimated bytes of a tap action in a node's list, with a closure's context.
    static let cost = MemoryMeter.Cost.object(48) + 24

    /// Creates a tap action.
    public init(count: Int = 1, action: Action, id: String? = nil, isHidden: Bool = false) {
        self.count = count
        self.action = action
        self.id = id
        self.isHidden = isHidden
    }
}
