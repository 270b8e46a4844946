/// Something a node does when tapped (``World/tap(_:count:location:)``).
public struct TapAction {
    /// What happens on a tap.
    public enum Action {
        /// Trigger this event from the tapped node.
        case trigger(Value)
        /// Produce an event at each tap and trigger it from the tapped node; `nil` when the
        /// producer ran and produced nothing to trigger (it returned nothing, or it failed and its
        /// host reported the error): the tap then counts as a function it performed.
        case triggerProduced(() throws -> Value?)
        /// Run a closure (for example a Lua function). It returns `false` when the function
        /// raised and its host reported the error from the node (the tap's trace then says the
        /// function `threw` and goes on with that error's steps), `true` otherwise.
        case perform(() throws -> Bool)
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

    /// Estimated bytes of a tap action in a node's list (its slot in the growing array, half
    /// again for the spare capacity of growth by doubling), with a closure's context (two
    /// captured references) and the small object a host's closure captures for its function
    /// (the Lua bridge's function slot). Calibrated against the C heap's growth: at
    /// `--max-memory 256`, 1.26 M tap actions peak at 256 MiB RSS where a plain Lua table peaks
    /// at 270 MiB (with the earlier estimate, about 70 of the 201 bytes under: 396 MiB).
    static let cost = MemoryLayout<TapAction>.stride * 3 / 2 + MemoryMeter.Cost.object(16) + MemoryMeter.Cost.object(24)

    /// ``cost`` with the action's id, which the kit gives every registration (`onTapGesture#12345`:
    /// past 15 bytes a string of its own; uncharged, 1.37x the cap in RSS: found by an adversary
    /// probe).
    var bytes: Int { Self.cost + MemoryMeter.Cost.string(id ?? "") }

    /// Creates a tap action.
    public init(count: Int = 1, action: Action, id: String? = nil, isHidden: Bool = false) {
        self.count = count
        self.action = action
        self.id = id
        self.isHidden = isHidden
    }
}
