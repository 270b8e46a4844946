import CLua
import CLuaShim
import ResponderEngine

/// Event and error values in Lua: immutable, fields readable, printed `Name{k=v}` (SPEC §2.1).
///
/// A value is a userdata whose user values hold its fields, its type and its cause; reading it
/// needs no Swift object (see `ModuleState.value(at:)` for when one is made).
package enum ValueBinding: ModuleBinding {
    /// The type of the value userdata at `index`, or nil. (Lifetime: the value's user value 2
    /// keeps the type's userdata, which retains the type; see `ModuleState.pushNewValue`.)
    static func type(_ m: ModuleState, at index: Int32) -> ValueType? {
        guard let cell = luashim_to_value(m.L, index, m.metatable(.value)) else { return nil }
        return Unmanaged<ValueType>.fromOpaque(luashim_value_type(cell)!).takeUnretainedValue()
    }

    static let index: LuaSwiftFunction = { L in
        let m = state(L)
        guard let type = type(m, at: 1) else {
            lua_pushnil(L)
            return 1
        }
        if lua_type(L, 2) == LUA_TSTRING, let key = m.runtime.string(at: 2) {
            switch key {
            case "type":
                lua_getiuservalue(L, 1, 2)
                return 1
            case "name":
                m.runtime.pushString(type.name)
                return 1
            case "cause":
                // the error this one replaced (SPEC §2.4); without one, a field named `cause`
                if lua_getiuservalue(L, 1, 3) != LUA_TNIL { return 1 }
                luashim_pop(L, 1)
            case "kind":
                // "event" or "error", unless the value has a field of that name (SPEC §2.1 names
                // no `kind`: a field `kind = "drag"` read back as "event")
                if luashim_value_field(L, 1, 2) != LUA_TNIL { return 1 }
                m.runtime.pushString(type.kind.rawValue)
                return 1
            default: break
            }
        }
        // (a value's few fields live in its user values: `luashim_new_value_copy`)
        luashim_value_field(L, 1, 2)
        return 1
    }

    static let newindex: LuaSwiftFunction = { L in
        let m = state(L)
        let key = m.runtime.string(at: 2) ?? "?"
        // (SPEC §2.1 names transformEvent; for an error, its counterpart comes first)
        let how =
            type(m, at: 1)?.kind == .error
            ? "transformError, as transformEvent does for events," : "transformEvent"
        return m.fail(
            "cannot assign field '\(key)' of \(describe(m, at: 1)): values are immutable (use \(how) to pass on a new value)"
        )
    }

    /// `Name{k=v, …}` of the value userdata at `index`.
    static func describe(_ m: ModuleState, at index: Int32) -> String {
        guard let type = type(m, at: index) else { return "value" }
        let L = m.L
        luashim_value_fields(L, index)
        defer { luashim_pop(L, 1) }
        let hidden: Set<String> = type === m.luaErrorType ? ["traceback"] : []
        return "\(type.name){\(LuaPayload.describeFields(L, lua_gettop(L), hiddenKeys: hidden))}"
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        m.runtime.pushString(describe(m, at: 1))
        return 1
    }

    /// `pairs(value)` iterates its fields: an iterator over the value itself (its state is the
    /// value, not the table that stores the fields, which a script could otherwise change: the
    /// value was immutable only until someone wrote into the table `pairs` returned; found by an
    /// adversary probe).
    static let pairs: LuaSwiftFunction = { L in
        let m = state(L)
        guard type(m, at: 1) != nil else { return m.fail("bad value") }
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(m.metatable(.value)))
        lua_pushcclosure(L, luashim_value_next, 1)
        lua_pushvalue(L, 1)
        lua_pushnil(L)
        return 3
    }

    /// Makes a `LuaError` value for a runtime error raised inside a responder.
    package static func luaError(_ m: ModuleState, message: String, traceback: String?, node: Node?) -> Value {
        let L = m.L
        m.luaErrorCount += 1
        m.lastLuaErrorMessage = message
        luashim_newtable(L)
        m.runtime.pushString(message)
        lua_setfield(L, -2, "message")
        if let traceback {
            m.runtime.pushString(traceback)
            lua_setfield(L, -2, "traceback")
        }
        if let node {
            m.push(node)
            lua_setfield(L, -2, "node")
        }
        m.pushNewValue(m.luaErrorType)
        // While the state closes, finalizers run in any order: the `LuaError` type's userdata
        // may be finalized already, and a value made of it is no value to Lua any more (a
        // responder failing in a later finalizer trapped here: found by an adversary probe). The
        // engine then gets a value of its own with the message.
        guard let value = m.value(at: -1) else {
            luashim_pop(L, 1)
            return Value(type: m.luaErrorType, payload: FieldsPayload(strings: ["message": message]))
        }
        luashim_pop(L, 1)
        return value
    }
}
