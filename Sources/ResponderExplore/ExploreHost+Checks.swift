import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

/// The checks after each action, and coverage.
extension ExploreHost {
    /// `tostring(lastTrace)` of the current action, or nil when it recorded none.
    package var lastTrace: String? {
        guard let trace = m.world.lastTrace, trace !== traceBeforeAction else { return nil }
        return trace.description
    }

    /// The checks after an action: a `LuaError` made, a violation recorded, an invariant broken.
    package func check() -> ExploreFailure? {
        if m.luaErrorCount > luaErrorsSeen {
            luaErrorsSeen = m.luaErrorCount
            let message = m.lastLuaErrorMessage
            return ExploreFailure(
                kind: .luaError, identity: ExploreFailure.identity(ofMessage: message),
                message: "LuaError: \(message)", trace: lastTrace)
        }
        let warnings = m.world.warnings
        if warnings.count > warningsSeen {
            let v = warnings[warningsSeen]
            warningsSeen = warnings.count
            let type = v.value?.type.name ?? ""
            return ExploreFailure(
                kind: .violation, identity: "\(v.kind.rawValue) \(type)",
                message: v.warningLine, trace: lastTrace)
        }
        if invariantCount > 0 { return checkInvariants() }
        return nil
    }

    private func checkInvariants() -> ExploreFailure? {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), ExploreAPI.registryKey) == LUA_TTABLE else { return nil }
        let e = lua_gettop(L)
        kitRawField(L, e, "invariants")
        let list = lua_gettop(L)
        kitRawField(L, e, "checkOne")
        let checkOne = lua_gettop(L)
        for i in 1...invariantCount {
            lua_pushvalue(L, checkOne)
            _ = lua_rawgeti(L, list, lua_Integer(i))
            m.push(m.world.root)
            if let failure = runtime.call(2, 1) { return callFailure(failure) }
            if lua_type(L, -1) == LUA_TSTRING {
                let message = runtime.string(at: -1) ?? ""
                _ = lua_rawgeti(L, list, lua_Integer(i))
                kitRawField(L, -1, "name")
                let name = runtime.string(at: -1) ?? "?"
                return ExploreFailure(kind: .invariant, identity: name, message: message, trace: lastTrace)
            }
            luashim_pop(L, 1)
        }
        return nil
    }

    // MARK: - coverage

    /// Responder and control coverage of this run (when the state records it).
    package func coverage() -> CoverageData? { runtime.coverage?.snapshot() }
}
