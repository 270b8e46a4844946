import ResponderEngine

/// One entry of a control's dispatch table.
final class ControlHandler {
    /// How an action function is called.
    enum Call {
        /// `fn(sender, action)`: `addAction`, a Button's action.
        case senderAction
        /// `fn()`: `onCommit`, `onIncrement`, `on.tap`.
        case none
        /// `fn(bool)`: `onEditingChanged`.
        case bool(Bool)
        /// `fn(value)`: `on.valueChange` (the control's value).
        case value
        /// `fn(text)`: `on.textChange`.
        case text
        /// An AsyncButton's action: started as a task of the button (`fn(task)`), unless one runs.
        case task
    }

    enum Kind {
        case action(KitSlot, Call)
        /// A target (nil: search the responder chain) and a selector.
        case target(TargetRef?, String)
    }

    var event: ControlEvent
    var id: String?
    var title: String?
    var kind: Kind
    /// For a free-form Stepper's `onIncrement` (+1) and `onDecrement` (-1) entries.
    var direction: Int?
    /// What the handle `addTarget` returned names it by (0: no handle names it).
    var token = 0

    init(event: ControlEvent, id: String?, title: String?, kind: Kind, direction: Int? = nil) {
        self.event = event
        self.id = id
        self.title = title
        self.kind = kind
        self.direction = direction
    }

    /// Estimated bytes of the entry's strings (id, title, selector) kept out of line.
    var textCost: Int {
        var bytes = id.map(MemoryMeter.Cost.string) ?? 0
        bytes += title.map(MemoryMeter.Cost.string) ?? 0
        if case .target(_, let selector) = kind { bytes += MemoryMeter.Cost.string(selector) }
        return bytes
    }

    /// The entry's strings, charged while it lives (a 1 MiB id, title or selector given 300
    /// times held 322 MB under a 16 MiB cap; found by an adversary probe).
    private var textMemory = MemoryAccount(nil)

    /// Charges the strings to `meter` (once; ``rechargeText()`` after they change).
    func chargeText(to meter: MemoryMeter?) {
        guard textMemory.meter == nil, let meter else { return }
        textMemory = MemoryAccount(meter)
        textMemory.charge(textCost)
    }

    /// Brings the charge in line with the strings after an entry was replaced in place.
    func rechargeText() {
        let now = textCost
        if now > textMemory.bytes { textMemory.charge(now - textMemory.bytes) }
        if now < textMemory.bytes { textMemory.release(textMemory.bytes - now) }
    }
}
