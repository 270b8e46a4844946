import CLua
import CLuaShim
import ResponderEngine

/// `Event`, `Error`, `AlertableError` and the type objects they return (SPEC §2.1).
enum TypeBinding: ModuleBinding {
    static func declare(_ L: OpaquePointer?, _ fname: String, _ kind: ValueKind, alertable: Bool) -> Int32 {
        let m = state(L)
        guard lua_type(L, 1) == LUA_TSTRING, let name = m.runtime.string(at: 1), !name.isEmpty else {
            if lua_type(L, 1) == LUA_TSTRING {
                return m.fail("bad argument #1 to '\(fname)' (type name (non-empty string) expected, got empty string)")
            }
            return m.argError(1, fname, "type name (string)", 1)
        }
        var parent: ValueType?
        if !luashim_isnoneornil(L, 2) {
            guard let p = m.valueType(at: 2), p.kind == kind else {
                return m.argError(2, fname, kind == .event ? "event type" : "error type", 2)
            }
            parent = p
        }
        m.push(ValueType(name: name, kind: kind, parent: parent, alertable: alertable, meter: m.world.meter))
        return 1
    }

    static let event: LuaSwiftFunction = { L in declare(L, "Event", .event, alertable: false) }
    static let error: LuaSwiftFunction = { L in declare(L, "Error", .error, alertable: false) }
    static let alertableError: LuaSwiftFunction = { L in declare(L, "AlertableError", .error, alertable: true) }

    /// `T{fields}` / `T()`: makes an immutable value.
    static let call: LuaSwiftFunction = { L in
        let m = state(L)
        guard let type = m.valueType(at: 1) else { return m.argError(0, "call", "type", 1) }
        let hasFields = !luashim_isnoneornil(L, 2)
        if hasFields && lua_type(L, 2) != LUA_TTABLE {
            return m.argError(1, type.name, "table of fields", 2)
        }
        // a raw copy of the fields, so later changes to the table do not reach the value: a few
        // fields go into the value userdata itself (one allocation, no table), more into a table
        _ = luashim_new_value_copy(L, hasFields ? 2 : 0, 1, m.metatable(.value))
        let value = lua_gettop(L)
        if type.isAlertable {
            m.runtime.pushString("message")
            let ok = luashim_value_field(L, value, -1) == LUA_TSTRING
            let got = m.kindName(at: -1)
            luashim_pop(L, 2)
            if !ok {
                return m.fail(
                    "bad argument #1 to '\(type.name)' (AlertableError needs a string field 'message', got \(got))")
            }
            m.runtime.pushString("title")
            let titleType = luashim_value_field(L, value, -1)
            let gotTitle = m.kindName(at: -1)
            luashim_pop(L, 2)
            if titleType != LUA_TNIL && titleType != LUA_TSTRING {
                return m.fail("bad argument #1 to '\(type.name)' (field 'title' must be a string, got \(gotTitle))")
            }
        }
        return 1
    }

    /// `T:is(value)`.
    static let isMethod: LuaSwiftFunction = { L in
        let m = state(L)
        guard let type = m.valueType(at: 1) else { return m.argError(0, "is", "type", 1) }
        if let cell = luashim_to_value(L, 2, m.metatable(.value)) {
            // (Lifetime: the value's user value 2 keeps its type; see `ModuleState.pushNewValue`.)
            let t = Unmanaged<ValueType>.fromOpaque(luashim_value_type(cell)!).takeUnretainedValue()
            lua_pushboolean(L, type.isSame(orAncestorOf: t) ? 1 : 0)
        } else if let t = m.valueType(at: 2) {
            lua_pushboolean(L, type.isSame(orAncestorOf: t) ? 1 : 0)
        } else {
            lua_pushboolean(L, 0)
        }
        return 1
    }

    static let get: LuaSwiftFunction = { L in
        let m = state(L)
        guard let type = m.valueType(at: 1), let key = m.runtime.string(at: 2) else {
            lua_pushnil(L)
            return 1
        }
        switch key {
        case "name": m.runtime.pushString(type.name)
        case "kind": m.runtime.pushString(type.kind.rawValue)
        case "parent": if let p = type.parent { m.push(p) } else { lua_pushnil(L) }
        case "alertable": lua_pushboolean(L, type.isAlertable ? 1 : 0)
        default: lua_pushnil(L)
        }
        return 1
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        guard let type = m.valueType(at: 1) else {
            m.pushPlaceholderName(at: 1, .type)
            return 1
        }
        m.runtime.pushString(type.name)
        return 1
    }

    static let newindex: LuaSwiftFunction = { L in
        state(L).fail("types are immutable")
    }
}
