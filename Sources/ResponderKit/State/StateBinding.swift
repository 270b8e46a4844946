import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// An `onChange` registration: `fn(new, old)` kept for its node.
struct KitObserver {
    let fn: KitSlot
    /// Identifies the registration for its handle's `cancel`.
    let token: Int
}

/// `State(initial)`: a source of truth. Its value lives in user value 1 of its userdata.
final class StateBox {
    var observers: [KitObserver] = [] { didSet { observersMemory.sync(count: observers.count) } }
    /// Whether its observers are being called: a change made meanwhile (by an observer) waits in
    /// the queue, user value 2, until every observer saw the change before it.
    var firing = false
    private var observersMemory: KitListMemory
    /// The box itself and its retain-ledger entry (States were not charged for their Swift side:
    /// 1.75x the cap in RSS; found by an adversary probe).
    private var boxMemory: MemoryAccount
    init(meter: MemoryMeter) {
        observersMemory = KitListMemory(meter, entryCost: KitObserver.cost)
        boxMemory = MemoryAccount(meter)
        boxMemory.charge(StateBox.cost)
    }
    /// Estimated bytes of a box: the object (observers, flag, two accounts), its entry in the
    /// retain ledger and the userdata's cache slot (calibrated: 16 bytes for those two left a
    /// million States 25 % above the cap in RSS).
    static let cost = MemoryMeter.Cost.object(72) + 48
}

/// A `Binding`: derived from a State (user value 1 is the State's userdata) or custom
/// (user values 1 and 2 are `get` and `set`, 3 the value its `onChange` observers saw last).
final class BindingBox {
    let isCustom: Bool
    var observers: [KitObserver] = [] { didSet { observersMemory.sync(count: observers.count) } }
    private var observersMemory: KitListMemory
    private var boxMemory: MemoryAccount
    init(isCustom: Bool, meter: MemoryMeter) {
        self.isCustom = isCustom
        observersMemory = KitListMemory(meter, entryCost: KitObserver.cost)
        boxMemory = MemoryAccount(meter)
        boxMemory.charge(StateBox.cost)  // (a box of the same size as a State's)
    }
}

/// The memory charged for a growing kit list: `entryCost` per element, kept in step with the
/// list's count by `sync` (called from the list's `didSet`, which does not copy the list).
struct KitListMemory: ~Copyable {
    private var account: MemoryAccount
    private var charged = 0
    let entryCost: Int

    init(_ meter: MemoryMeter?, entryCost: Int) {
        account = MemoryAccount(meter)
        self.entryCost = entryCost
    }

    mutating func sync(count: Int) {
        if count > charged { account.charge((count - charged) * entryCost) }
        if count < charged { account.release((charged - count) * entryCost) }
        charged = count
    }
}

extension KitObserver {
    /// Estimated bytes of an observer in a list (its slot object and the list slot).
    static let cost = MemoryMeter.Cost.object(32) + 16
}

/// SPEC §2.9: `State`, `Binding`, `s:binding()`, `s.value`, `b.value`, `node:onChange`.
enum StateBinding: ModuleBinding {
    // MARK: - constructors

    /// `State(initial)`.
    static let makeState: LuaSwiftFunction = { L in
        let m = state(L)
        lua_settop(L, 1)
        m.push(StateBox(meter: m.world.meter), .state, uservalues: 2)
        lua_pushvalue(L, 1)
        lua_setiuservalue(L, -2, 1)
        return 1
    }

    /// `Binding { get = fn, set = fn }`.
    static let makeBinding: LuaSwiftFunction = { L in
        let m = state(L)
        guard lua_type(L, 1) == LUA_TTABLE else {
            return m.argError(1, "Binding", "table { get = function, set = function }", 1)
        }
        kitRawField(L, 1, "get")
        kitRawField(L, 1, "set")
        for (i, name) in [(-2 as Int32, "get"), (-1, "set")] where !m.isCallable(at: i) {
            let got = lua_type(L, i) == LUA_TNIL ? "nil" : m.kindName(at: i)
            return m.fail("bad field '\(name)' in Binding { … } (function expected, got \(got))")
        }
        m.push(BindingBox(isCustom: true, meter: m.world.meter), .binding, uservalues: 3)
        lua_pushvalue(L, -3)
        lua_setiuservalue(L, -2, 1)
        lua_pushvalue(L, -2)
        lua_setiuservalue(L, -2, 2)
        return 1
    }

    /// Pushes a new Binding deriving from the State userdata at `index`.
    static func pushDerived(_ m: ModuleState, stateAt index: Int32) {
        let idx = lua_absindex(m.L, index)
        m.push(BindingBox(isCustom: false, meter: m.world.meter), .binding, uservalues: 2)
        lua_pushvalue(m.L, idx)
        lua_setiuservalue(m.L, -2, 1)
    }

    // MARK: - State userdata

    static let stateBindingMethod: LuaSwiftFunction = { L in
        let m = state(L)
        guard m.object(at: 1, .state, as: StateBox.self) != nil else { return m.argError(0, "binding", "State", 1) }
        pushDerived(m, stateAt: 1)
        return 1
    }

    static let stateGet: LuaSwiftFunction = { L in
        let m = state(L)
        guard m.object(at: 1, .state, as: StateBox.self) != nil, m.kitString(at: 2) == "value" else {
            lua_pushnil(L)
            return 1
        }
        lua_getiuservalue(L, 1, 1)
        return 1
    }

    static let stateSet: LuaSwiftFunction = { L in
        let m = state(L)
        guard let box = m.object(at: 1, .state, as: StateBox.self) else { return m.argError(0, "State", "State", 1) }
        guard m.kitString(at: 2) == "value" else {
            return m.fail(
                "cannot assign field '\(m.runtime.string(at: 2) ?? m.kindName(at: 2))' of a State (only 'value')")
        }
        return m.kitAction {
            try m.writeState(box, at: 1, valueAt: 3)
            return 0
        }
    }

    static let stateToString: LuaSwiftFunction = { L in
        let m = state(L)
        lua_getiuservalue(L, 1, 1)
        m.runtime.pushString("State(\(describe(m, -1)))")
        return 1
    }

    // MARK: - Binding userdata

    static let bindingGet: LuaSwiftFunction = { L in
        let m = state(L)
        guard let box = m.object(at: 1, .binding, as: BindingBox.self), m.kitString(at: 2) == "value" else {
            lua_pushnil(L)
            return 1
        }
        return m.readBinding(box, at: 1) ? 1 : LUASHIM_RAISE
    }

    static let bindingSet: LuaSwiftFunction = { L in
        let m = state(L)
        guard let box = m.object(at: 1, .binding, as: BindingBox.self) else {
            return m.argError(0, "Binding", "Binding", 1)
        }
        guard m.kitString(at: 2) == "value" else {
            return m.fail(
                "cannot assign field '\(m.runtime.string(at: 2) ?? m.kindName(at: 2))' of a Binding (only 'value')")
        }
        return m.kitAction {
            try m.writeBinding(box, at: 1, valueAt: 3, from: nil)
            return 0
        }
    }

    static let bindingToString: LuaSwiftFunction = { L in
        let m = state(L)
        guard let box = m.object(at: 1, .binding, as: BindingBox.self) else {
            m.pushPlaceholderName(at: 1, .binding)
            return 1
        }
        if box.isCustom {
            m.runtime.pushString("Binding(get/set)")
        } else {
            lua_getiuservalue(L, 1, 1)
            lua_getiuservalue(L, -1, 1)
            m.runtime.pushString("Binding(State(\(describe(m, -1))))")
        }
        return 1
    }

    /// A short printable form of a value (strings quoted).
    static func describe(_ m: ModuleState, _ index: Int32) -> String {
        if lua_type(m.L, index) == LUA_TSTRING { return "\"\(m.runtime.string(at: index) ?? "")\"" }
        return m.runtime.describe(index)
    }

    // MARK: - onChange

    /// `node:onChange(stateOrBinding, fn(new, old))`.
    static let onChange: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "onChange", "node", 1) }
        guard m.isCallable(at: 3) else { return m.argError(2, "onChange", "function", 3) }
        let observer = KitObserver(fn: KitSlot(m, node: node, valueAt: 3), token: m.kit.nextToken())
        if let s = m.object(at: 2, .state, as: StateBox.self) {
            s.observers.append(observer)
        } else if let b = m.object(at: 2, .binding, as: BindingBox.self) {
            if b.isCustom {
                if b.observers.allSatisfy({ $0.fn.node == nil }) {
                    // the value its observers start from; State writes re-read it from now on
                    guard m.readBinding(b, at: 2) else { return LUASHIM_RAISE }
                    lua_setiuservalue(L, 2, 3)
                    m.watchBinding(at: 2)
                }
                b.observers.append(observer)
            } else {
                lua_getiuservalue(L, 2, 1)
                guard let s = m.object(at: -1, .state, as: StateBox.self) else {
                    return m.fail("onChange: broken binding")
                }
                s.observers.append(observer)
            }
        } else {
            return m.argError(1, "onChange", "State or Binding", 2)
        }
        // the handle: cancel removes the observer (from the State a derived binding reads)
        if let b = m.object(at: 2, .binding, as: BindingBox.self), !b.isCustom {
            lua_getiuservalue(L, 2, 1)
        } else {
            lua_pushvalue(L, 2)
        }
        lua_pushinteger(L, lua_Integer(observer.token))
        m.pushKitHandle("onChange", remover: KitHandles.removeObserver, upvalues: 2)
        return 1
    }
}

extension ModuleState {
    /// Is the value at `index` a State or a Binding?
    func isBindable(at index: Int32) -> Bool {
        object(at: index, .state, as: StateBox.self) != nil || object(at: index, .binding, as: BindingBox.self) != nil
    }

    /// Sets the State at `stateIndex` to the value at `valueIndex`; observers run (from their
    /// nodes) when the value changed.
    func writeState(_ box: StateBox, at stateIndex: Int32, valueAt valueIndex: Int32) throws {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        let si = lua_absindex(L, stateIndex)
        let vi = lua_absindex(L, valueIndex)
        if box.firing, lua_getiuservalue(L, si, 2) == LUA_TTABLE,
            lua_rawlen(L, -1) >= 2 * ModuleState.maxStateRounds
        {
            // observers that keep changing the State: the write is refused, in the observer that
            // made it, as a dispatch nested too deeply is
            throw EngineError.nestedTooDeeply
        }
        lua_getiuservalue(L, si, 1)
        let old = lua_gettop(L)
        lua_pushvalue(L, vi)
        lua_setiuservalue(L, si, 1)
        if lua_rawequal(L, old, vi) != 0 { return }
        if box.firing {
            // An observer changed the State: the change waits until every observer saw the one
            // before, so each sees the changes in the order they were made, and the last call
            // it gets has the State's value (called at once, a later observer saw them newest
            // first). Queued as new and old values in user value 2.
            if lua_getiuservalue(L, si, 2) != LUA_TTABLE {
                luashim_pop(L, 1)
                luashim_newtable(L)
                lua_pushvalue(L, -1)
                lua_setiuservalue(L, si, 2)
            }
            let n = lua_Integer(lua_rawlen(L, -1))
            lua_pushvalue(L, vi)
            lua_rawseti(L, -2, n + 1)
            lua_pushvalue(L, old)
            lua_rawseti(L, -2, n + 2)
            return
        }
        box.firing = true
        defer {
            box.firing = false
            lua_pushnil(L)
            lua_setiuservalue(L, si, 2)
        }
        try fire(box.observers, newAt: vi, oldAt: old)
        var done: lua_Integer = 0
        while lua_getiuservalue(L, si, 2) == LUA_TTABLE, lua_Integer(lua_rawlen(L, -1)) > done {
            let queue = lua_gettop(L)
            lua_rawgeti(L, queue, done + 1)
            lua_rawgeti(L, queue, done + 2)
            done += 2
            try fire(box.observers, newAt: queue + 1, oldAt: queue + 2)
            lua_settop(L, queue - 1)
        }
        box.observers.removeAll { $0.fn.node == nil }
        try recheckCustomBindings()
    }

    /// How many changes observers may make to a State while its observers run for one write
    /// (as many as dispatches may nest).
    static let maxStateRounds = 100

    /// Runs observers `fn(new, old)`, each from its node, while that node is mounted (SPEC §2.10).
    func fire(_ observers: [KitObserver], newAt new: Int32, oldAt old: Int32) throws {
        for o in observers {
            guard let node = o.fn.node, node.isMounted else { continue }
            o.fn.push(self)
            guard isCallable(at: -1) else {
                luashim_pop(L, 1)
                continue
            }
            lua_pushvalue(L, new)
            lua_pushvalue(L, old)
            try kitCall(2, 0, from: node)
        }
    }

    /// Pushes the binding's current value; false with the error value on top when `get` raised.
    func readBinding(_ box: BindingBox, at index: Int32) -> Bool {
        let bi = lua_absindex(L, index)
        if box.isCustom {
            lua_getiuservalue(L, bi, 1)
            return runtime.callKeepingError(0, 1) == LUA_OK
        }
        lua_getiuservalue(L, bi, 1)
        lua_getiuservalue(L, -1, 1)
        luashim_remove(L, -2)
        return true
    }

    /// Writes through the binding at `index`. With `node`, a failing `get`/`set` is reported
    /// from the node (returns false); without, `KitScriptRaise` is thrown with the error on top.
    @discardableResult
    func writeBinding(_ box: BindingBox, at index: Int32, valueAt valueIndex: Int32, from node: Node?) throws -> Bool {
        let bi = lua_absindex(L, index)
        let vi = lua_absindex(L, valueIndex)
        if !box.isCustom {
            lua_getiuservalue(L, bi, 1)
            defer { luashim_pop(L, 1) }
            guard let s = object(at: -1, .state, as: StateBox.self) else { return false }
            try writeState(s, at: -1, valueAt: vi)
            return true
        }
        let top = lua_gettop(L)
        func failed() throws -> Bool {
            guard let node else { throw KitScriptRaise() }
            try reportFailedCall(from: node)
            lua_settop(L, top)
            return false
        }
        lua_getiuservalue(L, bi, 2)
        lua_pushvalue(L, vi)
        kit.bindingWrites += 1
        let status = runtime.callKeepingError(1, 0)
        kit.bindingWrites -= 1
        guard status == LUA_OK else { return try failed() }
        lua_settop(L, top)
        // the observers of this binding (and of any other custom binding the write changed)
        try recheckCustomBindings(raising: node == nil ? box : nil)
        return true
    }
}

extension ObjectKind {
    /// `State(initial)` boxes.
    static var state: ObjectKind { .init(rawValue: ObjectKind.firstExtensionValue) }
    /// `Binding(...)` boxes.
    static var binding: ObjectKind { .init(rawValue: ObjectKind.firstExtensionValue + 1) }
}
