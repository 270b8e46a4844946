import CLua
import CLuaShim
import ResponderEngine

/// Module-level functions over the world: warnings, traces, alerts, reset (SPEC §2.5–2.8).
enum WorldBinding: ModuleBinding {
    static func pushViolation(_ m: ModuleState, _ v: Violation) {
        let L = m.L
        lua_createtable(L, 0, 5)
        m.runtime.pushString(v.kind.rawValue)
        lua_setfield(L, -2, "kind")
        m.runtime.pushString(v.message)
        lua_setfield(L, -2, "message")
        m.push(v.node)
        lua_setfield(L, -2, "node")
        if let value = v.value {
            m.push(value)
            lua_setfield(L, -2, "value")
        }
        if let loc = v.location {
            m.runtime.pushString(loc.description)
            lua_setfield(L, -2, "location")
        }
        if let type = v.type, v.kind != .unhandledEvent, v.kind != .unhandledError {
            m.push(type)
            lua_setfield(L, -2, "type")
        }
    }

    static let warnings: LuaSwiftFunction = { L in
        let m = state(L)
        let list = m.world.warnings
        lua_createtable(L, Int32(list.count), 0)
        for (i, v) in list.enumerated() {
            pushViolation(m, v)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        return 1
    }

    static let clearWarnings: LuaSwiftFunction = { L in
        state(L).world.clearWarnings()
        return 0
    }

    static let lastTrace: LuaSwiftFunction = { L in
        let m = state(L)
        if let t = m.world.lastTrace { m.push(t, .trace) } else { lua_pushnil(L) }
        return 1
    }

    static let alert: LuaSwiftFunction = { L in
        let m = state(L)
        guard let a = m.world.alert else {
            lua_pushnil(L)
            return 1
        }
        lua_createtable(L, 0, 5)
        m.runtime.pushString(a.title)
        lua_setfield(L, -2, "title")
        m.runtime.pushString(a.message)
        lua_setfield(L, -2, "message")
        m.runtime.pushString(a.button)
        lua_setfield(L, -2, "button")
        m.push(a.node)
        lua_setfield(L, -2, "node")
        m.push(a.error)
        lua_setfield(L, -2, "error")
        return 1
    }

    static let dismissAlert: LuaSwiftFunction = { L in
        state(L).world.dismissAlert()
        return 0
    }

    static let reset: LuaSwiftFunction = { L in
        let m = state(L)
        lua_getfield(L, luashim_registryindex(), "responder.mounted")
        m.anchorWhileActing(-1)
        luashim_pop(L, 1)
        m.world.reset()
        luashim_set_abort(L, 0)
        lua_pushnil(L)
        lua_setfield(L, luashim_registryindex(), "responder.mounted")
        return 0
    }

    static let mounted: LuaSwiftFunction = { L in
        let m = state(L)
        m.push(m.world.root)
        return 1
    }

    /// `__gc` of every object userdata: releases the Swift object.
    static let gc: LuaSwiftFunction = { L in
        // releasing may run Swift code that touches Lua (freeing a node frees its stored
        // functions): point the bindings at the thread running this finalizer
        guard let L else { return 0 }
        // (the module state looked up once: a finalizer runs for every object Lua frees)
        let m = LuaRuntime.of(L).moduleState
        if let m, m.handle.L != nil, m.L != L { m.switchTo(L) }
        // A finalizer may resurrect the userdata (another object's `__gc` stores it): clear the
        // pointer so that every later use sees "not an object" instead of a released one.
        if let slot = lua_touserdata(L, 1)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
            let p = slot.pointee
        {
            slot.pointee = nil
            m?.finalized(p)
            Unmanaged<AnyObject>.fromOpaque(p).release()  // the retain taken by `ModuleState.push`
        }
        return 0
    }
}
