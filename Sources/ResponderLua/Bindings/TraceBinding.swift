import CLua
import CLuaShim
import ResponderEngine

/// Traces in Lua: `tostring(trace)` is the stable text form; `trace[i]` and `#trace` give steps
/// `{ node, index, responder, filter, value, decision, result }` (SPEC §2.8).
enum TraceBinding {
    @inline(__always)
    static func state(_ L: OpaquePointer?) -> ModuleState { ModuleState.enter(L) }

    static func pushStep(_ m: ModuleState, _ step: TraceStep) {
        let L = m.L
        lua_createtable(L, 0, 7)
        m.push(step.node)
        lua_setfield(L, -2, "node")
        lua_pushinteger(L, lua_Integer(step.index))
        lua_setfield(L, -2, "index")
        m.runtime.pushString(step.responder)
        lua_setfield(L, -2, "responder")
        if let f = step.filter { m.push(f); lua_setfield(L, -2, "filter") }
        m.push(step.value)
        lua_setfield(L, -2, "value")
        m.runtime.pushString(step.decision.rawValue)
        lua_setfield(L, -2, "decision")
        if let r = step.result { m.push(r); lua_setfield(L, -2, "result") }
    }

    static let index: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else { lua_pushnil(L); return 1 }
        if lua_type(L, 2) == LUA_TNUMBER {
            let i = Int(luashim_tointeger(L, 2, nil))
            let steps = trace.steps
            guard i >= 1 && i <= steps.count else { lua_pushnil(L); return 1 }
            pushStep(m, steps[i - 1])
            return 1
        }
        switch m.runtime.string(at: 2) ?? "" {
        case "steps":
            let steps = trace.steps
            lua_createtable(L, Int32(steps.count), 0)
            for (i, s) in steps.enumerated() {
                pushStep(m, s)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
        case "kind": m.runtime.pushString(trace.kind.rawValue)
        case "value": m.push(trace.initialValue)
        case "origin": m.push(trace.origin)
        case "header": m.runtime.pushString(trace.header)
        case "lines":
            let lines = trace.description.split(separator: "\n", omittingEmptySubsequences: false)
            lua_createtable(L, Int32(lines.count), 0)
            for (i, line) in lines.enumerated() {
                m.runtime.pushString(String(line))
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
        default: lua_pushnil(L)
        }
        return 1
    }

    static let len: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else { lua_pushinteger(L, 0); return 1 }
        lua_pushinteger(L, lua_Integer(trace.count))
        return 1
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else { m.pushPlaceholderName(at: 1, .trace); return 1 }
        m.runtime.pushString(trace.description)
        return 1
    }
}
