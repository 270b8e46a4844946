import CLua
import CLuaShim
import ResponderEngine

/// Registering responders and declarations on nodes (SPEC §2.4–2.6).
enum ResponderBinding: ModuleBinding {
    /// `node:kind([T,] fn [, { id, once }])` → node.
    static func register(_ L: OpaquePointer?, _ kind: ResponderKind) -> Int32 {
        let m = state(L)
        let fname = kind.rawValue
        guard let node = m.node(at: 1) else { return m.argError(0, fname, "node", 1) }
        var arg: Int32 = 2
        var filter: ValueType?
        let wantKind = kind.accepts
        if lua_type(L, arg) == LUA_TUSERDATA, let t = m.valueType(at: arg) {
            guard t.kind == wantKind else { return m.argError(1, fname, "\(wantKind.rawValue) type", arg) }
            filter = t
            arg += 1
        } else if !m.isCallable(at: arg) {
            return m.argError(1, fname, "\(wantKind.rawValue) type or function", arg)
        }
        guard m.isCallable(at: arg) else {
            return m.argError(Int(arg - 1), fname, "function", arg)
        }
        let fnIndex = arg
        // two functions: the first stands where a type belongs (`receiveError(AlertableError, fn)`,
        // a constructor function given for a type): argument #1 is wrong, not the options
        if filter == nil && lua_type(L, arg + 1) == LUA_TFUNCTION {
            return m.fail(
                "bad argument #1 to '\(fname)' (\(wantKind.rawValue) type expected, got function; "
                    + "a filter is a type made with \(wantKind == .event ? "Event" : "Error or AlertableError") \"Name\")"
            )
        }
        var id: String?
        var once = false
        if let failure = options(m, fname, Int(arg), arg + 1, &id, &once, on: node) { return failure }
        let body = m.makeBody(kind, node: node, functionAt: fnIndex)
        let entry = ResponderEntry(kind: kind, filter: filter, id: id, once: once, location: m.location(), body: body)
        m.runtime.coverage?.track(entry, on: node, L)
        node.addResponder(entry)
        lua_settop(L, 1)
        return 1
    }

    /// Reads `{ id = "x", once = true }` at `index` (optional). An id names one entry of `node`'s
    /// list: an empty one, or one another entry of the list has, is refused (two entries with
    /// one id were both removed by one `removeResponder(id)`: found by an acceptance probe).
    static func options(
        _ m: ModuleState, _ fname: String, _ n: Int, _ index: Int32,
        _ id: inout String?, _ once: inout Bool, on node: Node
    ) -> Int32? {
        let L = m.L
        if luashim_isnoneornil(L, index) { return nil }
        guard lua_type(L, index) == LUA_TTABLE else { return m.argError(n, fname, "options table", index) }
        if let status = m.checkOptionKeys(index, fname, allowed: ["id", "once"]) { return status }
        let idType = luashim_rawgetfield(L, index, "id")
        if idType == LUA_TSTRING || idType == LUA_TNUMBER {
            let text = m.runtime.string(at: -1) ?? ""
            if text.isEmpty { return m.fail("bad option 'id' to '\(fname)' (id expected: not empty; got \"\")") }
            // the list is searched: work charged by its length (ids on one long list)
            let length = node.responders.count + node.subscribers.count
            if length > 64 && m.runtime.charge(length) { return 0 }
            if node.responders.contains(where: { $0.id == text }) || node.subscribers.contains(where: { $0.id == text })
            {
                return m.fail(
                    "bad option 'id' to '\(fname)' (id \"\(TextClip.clip(text, to: TextClip.column))\" is already taken on \(node): an id names one entry, as removeResponder(id) removes it)"
                )
            }
            id = text
        } else if idType != LUA_TNIL {
            return m.fail("bad option 'id' to '\(fname)' (string expected, got \(m.kindName(at: -1)))")
        }
        luashim_pop(L, 1)
        let onceType = luashim_rawgetfield(L, index, "once")
        if onceType == LUA_TBOOLEAN {
            once = lua_toboolean(L, -1) != 0
        } else if onceType != LUA_TNIL {
            return m.fail("bad option 'once' to '\(fname)' (boolean expected, got \(m.kindName(at: -1)))")
        }
        luashim_pop(L, 1)
        return nil
    }

    static let receiveEvent: LuaSwiftFunction = { L in register(L, .receiveEvent) }
    static let handleEvent: LuaSwiftFunction = { L in register(L, .handleEvent) }
    static let transformEvent: LuaSwiftFunction = { L in register(L, .transformEvent) }
    static let receiveError: LuaSwiftFunction = { L in register(L, .receiveError) }
    static let handleError: LuaSwiftFunction = { L in register(L, .handleError) }
    static let transformError: LuaSwiftFunction = { L in register(L, .transformError) }
    static let catchError: LuaSwiftFunction = { L in register(L, .catchError) }

    /// `node:triggers(T1, …)` / `node:reports(E1, …)`.
    static func declare(_ L: OpaquePointer?, _ kind: ResponderKind) -> Int32 {
        let m = state(L)
        let fname = kind.rawValue
        guard let node = m.node(at: 1) else { return m.argError(0, fname, "node", 1) }
        let n = lua_gettop(L)
        var types: [ValueType] = []
        let want = kind.accepts
        if n < 2 { return m.argError(1, fname, "\(want.rawValue) type", 2) }
        for i in 2...n {
            guard let t = m.valueType(at: i), t.kind == want else {
                return m.argError(Int(i - 1), fname, "\(want.rawValue) type", i)
            }
            types.append(t)
        }
        let entry = ResponderEntry.declaration(kind, types, location: m.location())
        m.runtime.coverage?.track(entry, on: node, L)
        node.addResponder(entry)
        lua_settop(L, 1)
        return 1
    }

    static let triggers: LuaSwiftFunction = { L in declare(L, .triggers) }
    static let reports: LuaSwiftFunction = { L in declare(L, .reports) }

    static let handleAlertErrors: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "handleAlertErrors", "node", 1) }
        var id: String?
        var once = false
        if let failure = options(m, "handleAlertErrors", 1, 2, &id, &once, on: node) { return failure }
        let entry = ResponderEntry(kind: .handleAlertErrors, id: id, once: once, location: m.location())
        m.runtime.coverage?.track(entry, on: node, L)
        node.addResponder(entry)
        lua_settop(L, 1)
        return 1
    }

    /// `node:responders()` → `{ { index, kind, filter, id, once }, … }`.
    static let responders: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "responders", "node", 1) }
        lua_createtable(L, Int32(node.responders.count), 0)
        for (i, e) in node.responders.enumerated() {
            lua_createtable(L, 0, 6)
            lua_pushinteger(L, lua_Integer(i + 1))
            lua_setfield(L, -2, "index")
            m.runtime.pushString(e.kind.rawValue)
            lua_setfield(L, -2, "kind")
            if let f = e.filter {
                m.push(f)
                lua_setfield(L, -2, "filter")
            }
            if let id = e.id {
                m.runtime.pushString(id)
                lua_setfield(L, -2, "id")
            }
            lua_pushboolean(L, e.once ? 1 : 0)
            lua_setfield(L, -2, "once")
            if !e.declared.isEmpty {
                lua_createtable(L, Int32(e.declared.count), 0)
                for (j, t) in e.declared.enumerated() {
                    m.push(t)
                    lua_rawseti(L, -2, lua_Integer(j + 1))
                }
                lua_setfield(L, -2, "types")
            }
            m.runtime.pushString(e.label)
            lua_setfield(L, -2, "label")
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        // then the subscribers, so that a publication's `subscribe` step indexes this list too
        let first = node.responders.count
        for (j, s) in node.subscribers.enumerated() {
            lua_createtable(L, 0, 6)
            lua_pushinteger(L, lua_Integer(first + j + 1))
            lua_setfield(L, -2, "index")
            m.runtime.pushString("subscribe")
            lua_setfield(L, -2, "kind")
            m.push(s.type)
            lua_setfield(L, -2, "filter")
            if let id = s.id {
                m.runtime.pushString(id)
                lua_setfield(L, -2, "id")
            }
            lua_pushboolean(L, s.once ? 1 : 0)
            lua_setfield(L, -2, "once")
            m.runtime.pushString(s.label)
            lua_setfield(L, -2, "label")
            lua_rawseti(L, -2, lua_Integer(first + j + 1))
        }
        return 1
    }

    static let removeResponder: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "removeResponder", "node", 1) }
        guard lua_type(L, 2) == LUA_TSTRING || lua_type(L, 2) == LUA_TNUMBER, let id = m.runtime.string(at: 2) else {
            return m.argError(1, "removeResponder", "id (string)", 2)
        }
        lua_pushboolean(L, node.removeResponder(id: id) ? 1 : 0)
        return 1
    }

    static let safetyLevel: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "safetyLevel", "node", 1) }
        if lua_gettop(L) < 2 {
            m.runtime.pushString(node.effectiveSafetyLevel(default: m.world.defaultSafetyLevel).rawValue)
            return 1
        }
        // (a string only: reading a number as text would convert it, and the error say "string")
        guard lua_type(L, 2) == LUA_TSTRING, let s = m.runtime.string(at: 2), let level = SafetyLevel(rawValue: s)
        else {
            return m.argError(1, "safetyLevel", "\"relaxed\", \"strict\" or \"disabled\"", 2)
        }
        node.safetyLevel = level
        lua_settop(L, 1)
        return 1
    }

    static let requireExplicitResponders: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "requireExplicitResponders", "node", 1) }
        // without an argument it reads the setting in effect, as safetyLevel() does (it turned
        // the check back on: found by an acceptance probe)
        if lua_type(L, 2) == LUA_TNONE {
            lua_pushboolean(L, node.effectiveRequireExplicit ? 1 : 0)
            return 1
        }
        guard lua_type(L, 2) == LUA_TBOOLEAN else {
            return m.argError(1, "requireExplicitResponders", "boolean", 2)
        }
        node.requireExplicitResponders = lua_toboolean(L, 2) != 0
        lua_settop(L, 1)
        return 1
    }
}
