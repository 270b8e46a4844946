import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// The control events of a dispatch table (UIKit's `UIControl.Event`, the ones SPEC §2.9 names).
enum ControlEvent: String, CaseIterable {
    case touchUpInside, valueChanged, editingChanged, editingDidBegin, editingDidEnd, primaryActionTriggered

    static let list = allCases.map(\.rawValue).joined(separator: ", ")
}

/// The node kinds of the kit, kept in `Node.host` (values ≥ 10; `NodeBinding.Kind` uses 0 and 1).
enum ControlKind: Int, CaseIterable {
    case button = 10, textField, secureField, slider, stepper, toggle, segmentedControl, asyncButton

    /// The kinds, as `a control expected: …` lists them.
    static let names: String = {
        let all = allCases.map(\.name)
        return all.dropLast().joined(separator: ", ") + " or " + all.last!
    }()

    var name: String {
        switch self {
        case .button: "Button"
        case .textField: "TextField"
        case .secureField: "SecureField"
        case .slider: "Slider"
        case .stepper: "Stepper"
        case .toggle: "Toggle"
        case .segmentedControl: "SegmentedControl"
        case .asyncButton: "AsyncButton"
        }
    }

    /// The event `addAction`/`addTarget` use when none is given.
    var primaryEvent: ControlEvent {
        switch self {
        case .button, .asyncButton: .touchUpInside
        case .textField, .secureField: .editingChanged
        default: .valueChanged
        }
    }

    /// The closure sugar `node.on.*` this kind offers.
    var sugar: [String] {
        switch self {
        case .button, .asyncButton: ["tap"]
        case .toggle: ["tap", "valueChange"]
        case .textField, .secureField: ["textChange"]
        case .slider, .stepper, .segmentedControl: ["valueChange"]
        }
    }

    static func of(_ node: Node) -> ControlKind? { ControlKind(rawValue: node.host) }
}

/// A Lua value kept for a node (a function, a binding, a target table), stored in the node's
/// userdata function table so closures capturing the node stay collectable. Unlike
/// `FunctionSlot` it holds its node weakly, so it may outlive the node (state observers).
final class KitSlot {
    let handle: StateHandle
    weak var node: Node?
    let slot: Int32

    init(_ m: ModuleState, node: Node, valueAt index: Int32) {
        self.handle = m.handle
        self.node = node
        self.slot = m.storeFunction(node, at: index)
    }

    /// Estimated bytes of a slot object (its handle, weak node reference and slot number).
    static let cost = MemoryMeter.Cost.object(24)

    /// Pushes the value (nil when the node or its userdata is gone).
    func push(_ m: ModuleState) {
        guard let node else {
            lua_pushnil(m.L)
            return
        }
        m.pushFunction(node, slot)
    }

    deinit {
        guard let L = handle.L, let node, let m = LuaRuntime.of(L).moduleState else { return }
        m.releaseFunction(node, slot)
    }
}

/// A number as Lua keeps it.
enum KitNumber: Equatable {
    case int(Int64)
    case float(Double)

    var double: Double {
        switch self {
        case .int(let i): Double(i)
        case .float(let d): d
        }
    }
    var isInt: Bool { if case .int = self { true } else { false } }

    func push(_ L: OpaquePointer?) {
        switch self {
        case .int(let i): lua_pushinteger(L, lua_Integer(i))
        case .float(let d): lua_pushnumber(L, d)
        }
    }

    static func at(_ L: OpaquePointer?, _ index: Int32) -> KitNumber? {
        guard lua_type(L, index) == LUA_TNUMBER else { return nil }
        if lua_isinteger(L, index) != 0 { return .int(Int64(luashim_tointeger(L, index, nil))) }
        return .float(luashim_tonumber(L, index, nil))
    }

    static func + (a: KitNumber, b: KitNumber) -> KitNumber {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.addingReportingOverflow(y)
            if !o { return .int(r) }
        }
        return .float(a.double + b.double)
    }

    static func - (a: KitNumber, b: KitNumber) -> KitNumber {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, o) = x.subtractingReportingOverflow(y)
            if !o { return .int(r) }
        }
        return .float(a.double - b.double)
    }

    static func < (a: KitNumber, b: KitNumber) -> Bool {
        if case .int(let x) = a, case .int(let y) = b { return x < y }
        return a.double < b.double
    }

    /// Removes binary noise from float arithmetic (`0.1 + 0.2` is `0.3`).
    var cleaned: KitNumber {
        guard case .float(let d) = self, d.isFinite else { return self }
        let scale = abs(d) < 1e3 ? 1e12 : abs(d) < 1e6 ? 1e9 : 0
        guard scale > 0 else { return self }
        return .float((d * scale).rounded() / scale)
    }

    func clamped(_ lo: KitNumber?, _ hi: KitNumber?) -> KitNumber {
        var v = self
        if let lo, v < lo { v = lo }
        if let hi, hi < v { v = hi }
        return v
    }
}

/// What the kit keeps for a control (the part that is not a dispatch table entry).
final class ControlState {
    let kind: ControlKind
    /// The binding (`text`, `value`, `isOn`), a Binding userdata.
    var binding: KitSlot?
    var range: (KitNumber, KitNumber)?
    var step: KitNumber?
    var isEditing = false
    /// Free-form Stepper: which directions are enabled (`false` disables).
    var canIncrement = true
    var canDecrement = true
    /// SegmentedControl.
    /// The segments; add them with ``insertSegment(_:at:)`` (which charges them).
    private(set) var segments: [(title: String, action: KitSlot?, id: String?)] = []
    var selectedSegment: Int?
    /// Segments with their titles and ids (300 segments sharing one 1 MiB title held 322 MB
    /// under a 16 MiB cap, and segments were not charged at all; found by an adversary probe).
    private var segmentMemory: MemoryAccount

    init(kind: ControlKind, meter: MemoryMeter?) {
        self.kind = kind
        segmentMemory = MemoryAccount(meter)
    }

    /// Inserts a segment at `index` (0-based; `segments.count` appends), charging it (a slot for
    /// its action whether it has one or not: `setAction` may give it one).
    func insertSegment(_ segment: (title: String, action: KitSlot?, id: String?), at index: Int) {
        segments.insert(segment, at: index)
        segmentMemory.charge(
            MemoryMeter.Cost.arraySlot * 5 + KitSlot.cost + MemoryMeter.Cost.string(segment.title)
                + (segment.id.map(MemoryMeter.Cost.string) ?? 0))
    }

    /// Replaces segment `index`'s action (0-based).
    func setSegmentAction(_ action: KitSlot?, at index: Int) { segments[index].action = action }
}

/// The kit's data about one node: its control state, dispatch table and `canPerform` actions.
final class NodeKit {
    weak var node: Node?
    var control: ControlState?
    var handlers: [ControlHandler] = [] {
        didSet {
            memory.sync(count: handlers.count + performers.count)
            // entries are appended one at a time: the last one's strings (charged once)
            handlers.last?.chargeText(to: meter)
        }
    }
    /// `canPerform` declarations; `token` names each for the handle `canPerform` returned.
    /// Their selectors are charged by ``chargeSelector(_:)`` and ``releaseSelector(_:)``.
    var performers: [(selector: String, fn: KitSlot, token: Int)] = [] {
        didSet { memory.sync(count: handlers.count + performers.count) }
    }
    private let meter: MemoryMeter?
    private var selectorMemory: MemoryAccount
    /// Charges a performer's selector when it is added.
    func chargeSelector(_ selector: String) { selectorMemory.charge(MemoryMeter.Cost.string(selector)) }
    /// Releases a performer's selector when it is removed.
    func releaseSelector(_ selector: String) { selectorMemory.release(MemoryMeter.Cost.string(selector)) }
    /// The node's `.disabled` setting for its subtree (SPEC §2.10), or nil.
    var disabled: DisabledSetting?
    /// Whether the script gave an action an id of the generated form (`action#7`): only then
    /// must a generated id be checked against the table (a scan per `addAction` otherwise).
    var hasChosenGeneratedStyleId = false
    /// An AsyncButton's loading predicate: `fn()` returns whether a task of the button runs and
    /// whether the button is disabled while loading.
    var loading: KitSlot?
    /// Handlers and performers, charged to the node's meter.
    private var memory: KitListMemory

    init(node: Node, meter: MemoryMeter) {
        self.node = node
        self.meter = meter
        self.memory = KitListMemory(meter, entryCost: Self.entryCost)
        self.selectorMemory = MemoryAccount(meter)
    }

    /// Estimated bytes of a handler or performer (its object, its slot object, the list slot).
    static let entryCost = MemoryMeter.Cost.object(64) + MemoryMeter.Cost.object(32) + 16
    /// Estimated bytes of a control's kit data (the node's kit, its control state).
    static let controlCost = MemoryMeter.Cost.object(48) + MemoryMeter.Cost.object(128) + 64

    func performer(_ selector: String) -> KitSlot? {
        performers.first { $0.selector == selector }?.fn
    }
}

/// Per-state registry (kept in `LuaRuntime.extensions`): nodes' kit data by identity.
final class KitRegistry {
    private var nodes: [ObjectIdentifier: NodeKit] = [:]
    /// The meter kit data is charged to.
    let meter: MemoryMeter
    init(meter: MemoryMeter) { self.meter = meter }
    private var purgeAt = 64
    /// The text field being edited (focus), if any.
    weak var focused: Node?
    /// Some custom `Binding` has `onChange` observers: State writes re-read them (see
    /// `ModuleState.recheckCustomBindings`).
    var watchesBindings = false
    /// Writes through custom bindings running (their `set`): the re-read waits for the
    /// outermost to end, so each change is seen once.
    var bindingWrites = 0
    /// Numbers generated ids (`action#1`, `on.tap#2`, …) of entries added without one.
    private var lastGeneratedId = 0
    /// The posts being traced, outermost first (``PostTrace``).
    var postTraces: [PostTrace.Pending] = []

    /// A fresh number for a registration's handle.
    func nextToken() -> Int {
        lastGeneratedId += 1
        return lastGeneratedId
    }

    /// A fresh id `prefix#n` for an entry added without one.
    func generatedId(_ prefix: String) -> String {
        lastGeneratedId += 1
        return "\(prefix)#\(lastGeneratedId)"
    }

    func kit(_ node: Node) -> NodeKit? {
        guard let k = nodes[ObjectIdentifier(node)], k.node === node else { return nil }
        return k
    }

    func kitCreating(_ node: Node) -> NodeKit {
        if let k = kit(node) { return k }
        if nodes.count >= purgeAt {
            nodes = nodes.filter { $0.value.node != nil }
            purgeAt = max(64, nodes.count * 2)
        }
        let k = NodeKit(node: node, meter: meter)
        nodes[ObjectIdentifier(node)] = k
        return k
    }
}

/// Thrown when a Lua call made directly for the script failed: its error value is on top of
/// the stack and the Swift function should raise it as it is.
struct KitScriptRaise: Error {}

extension ModuleState {
    var kit: KitRegistry {
        let key = ObjectIdentifier(KitRegistry.self)
        if let r = runtime.extensions[key] as? KitRegistry { return r }
        let r = KitRegistry(meter: world.meter)
        runtime.extensions[key] = r
        return r
    }

    /// Calls the function below `nargs` arguments; a failure is reported from `node` (see
    /// `reportFailedCall`). Returns whether it succeeded (results on the stack) or not (nothing).
    @discardableResult
    func kitCall(_ nargs: Int32, _ nresults: Int32, from node: Node) throws -> Bool {
        if runtime.callKeepingError(nargs, nresults) != LUA_OK {
            try reportFailedCall(from: node)
            return false
        }
        if world.pendingAbort != nil { throw EngineError.aborted }
        if pendingErrorSet { throw LuaCallError() }
        return true
    }

    /// Runs a kit action for a Lua-facing function: `world.performAction`, errors raised.
    func kitAction(_ body: () throws -> Int32) -> Int32 {
        if isNestedTooDeeply { return DispatchBinding.refuseNesting(self) }
        do {
            return try world.performAction(body)
        } catch is KitScriptRaise {
            return LUASHIM_RAISE
        } catch {
            return DispatchBinding.raise(self, error)
        }
    }

    /// The string form of a Lua string at `index` without conversion surprises.
    func kitString(at index: Int32) -> String? {
        lua_type(L, index) == LUA_TSTRING ? runtime.string(at: index) : nil
    }
}

/// `t[name]` without metamethods (user tables may have an `__index` that raises); pushes the
/// value and returns its type. (Also `explore`'s, for the explore chunk's own tables.)
@discardableResult
package func kitRawField(_ L: OpaquePointer?, _ index: Int32, _ name: String) -> Int32 {
    let t = lua_absindex(L, index)
    var name = name
    name.withUTF8 { buf in
        buf.withMemoryRebound(to: CChar.self) { luashim_pushlstring(L, $0.baseAddress, $0.count) }
    }
    return lua_rawget(L, t)
}
