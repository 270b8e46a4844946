import CLua
import CLuaShim
import ResponderEngine

/// Event and error values in Lua: immutable, fields readable, printed `Name{k=v}` (SPEC §2.1).
enum ValueBinding {
    @inline(__always)
    static func state(_ L: OpaquePointer?) -> ModuleState { ModuleState.enter(L) }

    static let index: LuaSwiftFunction = { L in
        let m = state(L)
        guard let v = m.value(at: 1) else { lua_pushnil(L); return 1 }
        if lua_type(L, 2) == LUA_TSTRING, let key = m.runtime.string(at: 2) {
            switch key {
            case "type": m.push(v.type); return 1
            case "name": m.runtime.pushString(v.type.name); return 1
            case "cause": m.push(v.cause); return 1
            case "kind": m.runtime.pushString(v.kind.rawValue); return 1
            default: break
            }
        }
        guard let payload = v.payload as? LuaPayload else { lua_pushnil(L); return 1 }
        payload.pushFields(L!)
        lua_pushvalue(L, 2)
        lua_rawget(L, -2)
        return 1
    }

    static let newindex: LuaSwiftFunction = { L in
        let m = state(L)
        let v = m.value(at: 1)
        let key = m.runtime.string(at: 2) ?? "?"
        let how = v?.kind == .error ? "transformError" : "transformEvent"
        return m.fail("cannot assign field '\(key)' of \(v?.description ?? "value"): values are immutable (use \(how) to pass on a new value)")
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        guard let v = m.value(at: 1) else { lua_pushnil(L); return 1 }
        m.runtime.pushString(v.description)
        return 1
    }

    /// `a == b`: the same Swift value (two userdata can wrap one value).
    static let eq: LuaSwiftFunction = { L in
        let m = state(L)
        let a = m.value(at: 1), b = m.value(at: 2)
        lua_pushboolean(L, a != nil && a === b ? 1 : 0)
        return 1
    }

    /// `pairs(value)` iterates its fields.
    static let pairs: LuaSwiftFunction = { L in
        let m = state(L)
        guard let v = m.value(at: 1), let payload = v.payload as? LuaPayload else { return m.fail("bad value") }
        lua_getglobal(L, "next")
        payload.pushFields(L!)
        lua_pushnil(L)
        return 3
    }

    /// Makes a `LuaError` value for a runtime error raised inside a responder.
    static func luaError(_ m: ModuleState, message: String, traceback: String?, node: Node?) -> Value {
        let L = m.L
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
        let payload = LuaPayload(handle: m.handle, popping: L, hiddenKeys: ["traceback"])
        return Value(type: m.luaErrorType, payload: payload)
    }
}
