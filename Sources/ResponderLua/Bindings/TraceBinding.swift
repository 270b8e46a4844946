import CLua
import CLuaShim
import ResponderEngine

/// Traces in Lua: `tostring(trace)` is the stable text form; `trace[i]` and `#trace` give steps
/// `{ node, index, responder, label, filter, value, decision, result }` (SPEC §2.8).
enum TraceBinding: ModuleBinding {
    static func pushStep(_ m: ModuleState, _ step: TraceStep) {
        let L = m.L
        lua_createtable(L, 0, 7)
        m.push(step.node)
        lua_setfield(L, -2, "node")
        // a step that is no entry of `node:responders()` (the final `unhandled`, a node a
        // nil-targeted action asked, a tap gesture) has no index; `unhandled` has no responder
        if step.index > 0 {
            lua_pushinteger(L, lua_Integer(step.index))
            lua_setfield(L, -2, "index")
        }
        // `responder` names the kind as `outcome.responder` and `node:responders()` do
        // (`handleEvent`); `label` is the entry's label (`handleEvent(ItemSelected)`)
        if !step.responder.isEmpty {
            m.runtime.pushString(kindName(ofLabel: step.responder))
            lua_setfield(L, -2, "responder")
            m.runtime.pushString(step.responder)
            lua_setfield(L, -2, "label")
        }
        if let f = step.filter {
            m.push(f)
            lua_setfield(L, -2, "filter")
        }
        m.push(step.value)
        lua_setfield(L, -2, "value")
        m.runtime.pushString(step.decision.rawValue)
        lua_setfield(L, -2, "decision")
        if let r = step.result {
            m.push(r)
            lua_setfield(L, -2, "result")
        }
    }

    /// The entry kinds a step label starts with: the responder kinds and the declarations.
    static let entryKinds = Set(ResponderKind.allCases.map(\.rawValue) + ["triggers", "reports", "subscribe"])

    /// `handleEvent` for `handleEvent(ItemSelected)`; labels of other steps (target–action's
    /// `addTarget(nil, undo:)`, `canPerform(undo:)`) stay whole.
    static func kindName(ofLabel label: String) -> String {
        guard let paren = label.firstIndex(of: "(") else { return label }
        let head = String(label[..<paren])
        return entryKinds.contains(head) ? head : label
    }

    static let index: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else {
            lua_pushnil(L)
            return 1
        }
        if lua_type(L, 2) == LUA_TNUMBER {
            let i = Int(luashim_tointeger(L, 2, nil))
            let steps = trace.steps
            guard i >= 1 && i <= steps.count else {
                lua_pushnil(L)
                return 1
            }
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
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else {
            lua_pushinteger(L, 0)
            return 1
        }
        lua_pushinteger(L, lua_Integer(trace.count))
        return 1
    }

    /// `pairs(trace)`: the steps in order, as `ipairs` gives them (a trace is a list of steps).
    static let pairs: LuaSwiftFunction = { L in
        luashim_push_swift_function(L, pairsNext)
        lua_pushvalue(L, 1)
        lua_pushinteger(L, 0)
        return 3
    }

    /// The iterator of `pairs(trace)`: `i + 1` and that step, or nothing after the last one.
    static let pairsNext: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else { return 0 }
        let i = Int(luashim_tointeger(L, 2, nil)) + 1
        guard i >= 1 && i <= trace.count else { return 0 }
        lua_pushinteger(L, lua_Integer(i))
        pushStep(m, trace.steps[i - 1])
        return 2
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = m.object(at: 1, .trace, as: Trace.self) else {
            m.pushPlaceholderName(at: 1, .trace)
            return 1
        }
        m.runtime.pushString(trace.description)
        return 1
    }
}
