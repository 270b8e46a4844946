import CLua
import CLuaShim
import ResponderEngine

/// A parsed tap action, or the raised status of a bad argument.
enum ActionOrFailure {
    case success(TapAction.Action)
    case failure(Int32)
}

/// `EventButton`, `node:onTapGesture` and the actions `tap` performs (SPEC §2.7).
package enum TapBinding: ModuleBinding {
    /// The action for an `event = E{…}` or `trigger = fn` field at `index`; nil plus a raised
    /// error status when the field has the wrong kind. A function may return nothing when
    /// `mayReturnNothing` (`onTapGesture`'s: it then ran as a tap function).
    static func triggerAction(
        _ m: ModuleState, _ node: Node, at index: Int32, field: String,
        owner: String, mayReturnNothing: Bool
    ) -> ActionOrFailure {
        if let v = m.value(at: index) {
            guard v.kind == .event else {
                return .failure(m.fail("bad field '\(field)' in \(owner) (event or function expected, got error)"))
            }
            return .success(TapAction.Action.trigger(v))
        }
        if let type = m.valueType(at: index) {
            // a type is callable, but it is not what the field takes: said here, not at the tap
            // (an error type failed only when tapped, as a LuaError about an "event function":
            // found by an acceptance probe)
            let kind = type.kind == .event ? "event" : "error"
            return .failure(
                m.fail(
                    "bad field '\(field)' in \(owner) (event or function expected, got \(kind) type \(type.name)"
                        + (type.kind == .event ? "; make a value with \(type.name) {})" : ")")))
        }
        guard m.isCallable(at: index) else {
            return .failure(
                m.fail("bad field '\(field)' in \(owner) (event or function expected, got \(m.kindName(at: index)))"))
        }
        let slot = FunctionSlot(m, node: node, functionAt: index)
        // [unowned(unsafe) m]: tap actions run only in this state's `tap` (proof at `ModuleState`)
        return .success(
            TapAction.Action.triggerProduced { [unowned(unsafe) m] in
                try m.callProducer(slot, owner: owner, mayReturnNothing: mayReturnNothing)
            })
    }

    static func setButtonEvent(_ m: ModuleState, _ node: Node, at index: Int32) -> Int32? {
        switch triggerAction(m, node, at: index, field: "event", owner: "EventButton", mayReturnNothing: false) {
        case .failure(let status): return status
        case .success(let action):
            node.removeTapActions()
            node.onTapGesture(count: 1, action: action)
            return nil
        }
    }

    /// `node:onTapGesture(fn)` or `node:onTapGesture { trigger = E{…} | fn, perform = fn, count = n }`.
    static let onTapGesture: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "onTapGesture", "node", 1) }
        if m.valueType(at: 2) != nil {
            // a type is callable: `onTapGesture(E)` would make a value and drop it at each tap
            return m.argError(1, "onTapGesture", "function or table", 2)
        }
        if m.isCallable(at: 2) {
            return pushHandle(m, node, count: 1, action: performAction(m, node, at: 2))
        }
        guard lua_type(L, 2) == LUA_TTABLE else {
            return m.argError(1, "onTapGesture", "function or table", 2)
        }
        if let status = m.checkOptionKeys(2, "onTapGesture", allowed: ["trigger", "perform", "count"]) {
            return status
        }
        var count = 1
        if luashim_rawgetfield(L, 2, "count") != LUA_TNIL {
            var ok: Int32 = 0
            let n = luashim_tointeger(L, -1, &ok)
            guard ok != 0, n >= 1 else {
                return m.fail("bad field 'count' in onTapGesture (positive integer expected)")
            }
            count = Int(n)
        }
        luashim_pop(L, 1)
        if luashim_rawgetfield(L, 2, "trigger") != LUA_TNIL {
            switch triggerAction(m, node, at: -1, field: "trigger", owner: "onTapGesture", mayReturnNothing: true) {
            case .failure(let status): return status
            case .success(let action): return pushHandle(m, node, count: count, action: action)
            }
        } else if luashim_rawgetfield(L, 2, "perform") != LUA_TNIL, m.isCallable(at: -1), m.valueType(at: -1) == nil {
            return pushHandle(m, node, count: count, action: performAction(m, node, at: -1))
        }
        return m.fail(
            "bad argument #1 to 'onTapGesture' (table needs 'trigger' (event or function) or 'perform' (function))")
    }

    /// Adds the tap action under an id of its own and pushes its registration handle, whose
    /// `cancel()` removes that action (SPEC §2.10).
    private static func pushHandle(_ m: ModuleState, _ node: Node, count: Int, action: TapAction.Action) -> Int32 {
        let id = "onTapGesture#\(m.nextRegistrationNumber())"
        node.onTapGesture(count: count, action: action, id: id)
        m.push(node)
        m.runtime.pushString(id)
        m.pushRegistration("onTapGesture", node, remover: removeTapAction, upvalues: 2)
        return 1
    }

    /// Remover of an `onTapGesture` registration: upvalue 2 the node, 3 the tap action's id.
    static let removeTapAction: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: luashim_upvalueindex(2)),
            let id = m.runtime.string(at: luashim_upvalueindex(3))
        else { return 0 }
        node.removeTapAction(id: id)
        return 0
    }

    /// A tap action that runs a Lua function; an error it raises is reported from the node.
    package static func performAction(_ m: ModuleState, _ node: Node, at index: Int32) -> TapAction.Action {
        let slot = FunctionSlot(m, node: node, functionAt: index)
        // [unowned(unsafe) m]: tap actions run only in this state's `tap` (proof at `ModuleState`)
        return .perform { [unowned(unsafe) m] in
            try m.callAction(slot)
        }
    }
}

extension ModuleState {
    /// Calls a tap producer, which returns the event to trigger. An error it raises is reported
    /// from the node as a `LuaError`, as a tap function's is, and so is a return that is not an
    /// event (for `onTapGesture { trigger = fn }`, whose function may also return nothing: it
    /// ran as a tap function); either way nothing is triggered (nil).
    func callProducer(_ slot: FunctionSlot, owner: String, mayReturnNothing: Bool) throws -> Value? {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        pushFunction(slot.node, slot.slot)
        if runtime.callKeepingError(0, 1) != LUA_OK {
            try reportFailedCall(from: slot.node, countingInterrupt: false)
            return nil
        }
        if mayReturnNothing && lua_type(L, -1) == LUA_TNIL { return nil }
        guard let v = value(at: -1), v.kind == .event else {
            // placed at the line that defines the function, as a responder's wrong return is
            // at the line that registered it: the wiring to fix (found by an acceptance probe)
            pushFunction(slot.node, slot.slot)
            let place = definitionPlace(at: -1)
            luashim_pop(L, 1)
            let message =
                "\(place)\(owner) event function returned \(kindName(at: -1)) (an event expected"
                + (mayReturnNothing ? ", or nothing)" : ")")
            let error = ValueBinding.luaError(self, message: message, traceback: nil, node: slot.node)
            _ = try world.report(error, from: slot.node, location: location())
            return nil
        }
        return v
    }

    /// Calls a tap perform function; its errors are reported from the node as `LuaError`s.
    /// Returns false when it raised.
    func callAction(_ slot: FunctionSlot) throws -> Bool {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        pushFunction(slot.node, slot.slot)
        if runtime.callKeepingError(0, 0) != LUA_OK {
            try reportFailedCall(from: slot.node, countingInterrupt: false)
            return false
        }
        return true
    }

    /// `file:line: ` of the definition of the Lua function at `index` ("" for a C function or
    /// another value).
    func definitionPlace(at index: Int32) -> String {
        guard lua_type(L, index) == LUA_TFUNCTION else { return "" }
        var ar = lua_Debug()
        lua_pushvalue(L, index)
        guard lua_getinfo(L, ">S", &ar) != 0, ar.linedefined > 0 else { return "" }
        let source = withUnsafeBytes(of: ar.short_src) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return "\(source):\(ar.linedefined): "
    }
}
