import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// Resuming coroutines: async task bodies (SPEC §2.9 part B) and, through the kit prelude's
/// `coroutine.resume` / `coroutine.wrap`, the script's own coroutines.
///
/// Swift bindings work on `ModuleState.L` / `LuaRuntime.L`; while a task's coroutine runs,
/// those (and `StateHandle.L`) point at the coroutine's thread, so that every binding the task
/// body calls reads its arguments from the right stack. They are restored when it yields or ends.
enum AsyncResume {
    /// `K.resume(co, ...)` → `"yield", values…` | `"ok", values…` | `"error", err, traceback`.
    /// A limit or a strict abort raised inside the coroutine is raised again (not returned).
    static let resume: LuaSwiftFunction = { L in
        let m = EnvironmentBinding.state(L)
        guard let L, let co = lua_tothread(L, 1) else { return m.argError(1, "resume", "coroutine", 1) }
        let nargs = lua_gettop(L) - 1
        guard lua_checkstack(co, nargs + 1) != 0 else { return m.fail("resume: stack overflow") }
        lua_xmove(L, co, nargs)

        let savedModule = m.L
        let savedRuntime = m.runtime.L
        let savedHandle = m.handle.L
        let control = m.runtime.control
        let savedDepth = control.pointee.hostDepth
        m.L = co
        m.runtime.L = co
        m.handle.L = co
        control.pointee.hostDepth = 0
        var nres: Int32 = 0
        // an action, so that a strict violation inside the body aborts it as a whole
        let result = Result {
            try m.world.performAction {
                // what the task's body starts are top-level actions for --trace
                let savedTop = m.topActionDepth
                m.topActionDepth = m.world.actionDepth
                defer { m.topActionDepth = savedTop }
                return luashim_resume(co, L, nargs, &nres)
            }
        }
        control.pointee.hostDepth = savedDepth
        m.L = savedModule
        m.runtime.L = savedRuntime
        m.handle.L = savedHandle
        let status: Int32
        switch result {
        case .success(let s): status = s
        case .failure(let error):
            lua_settop(co, 0)
            return DispatchBinding.raise(m, error)
        }

        switch status {
        case LUA_OK, LUA_YIELD:
            guard lua_checkstack(L, nres + 2) != 0 else { return m.fail("resume: stack overflow") }
            m.runtime.pushString(status == LUA_OK ? "ok" : "yield")
            lua_xmove(co, L, nres)
            return nres + 1
        default:
            lua_xmove(co, L, 1)
            let c = control.pointee
            if c.limitRaised != 0 || c.budgetExceeded != 0 || c.interrupt != 0 || status == LUA_ERRMEM
                || m.world.pendingAbort != nil || m.pendingErrorSet
            {
                if m.pendingErrorSet { m.pushPendingError() }
                return LUASHIM_RAISE
            }
            let error = lua_gettop(L)
            m.runtime.pushString("error")
            luashim_insert(L, error)
            luaL_traceback(L, co, nil, 0)
            return 3
        }
    }
}
