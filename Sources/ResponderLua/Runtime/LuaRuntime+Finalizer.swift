import CLua

extension LuaRuntime {
    /// Whether a `__gc` finalizer is on the current call stack. An error raised there never
    /// reaches the script (Lua turns it into a warning), so a strict violation inside one is
    /// carried out by the limit hook instead, once the finalizer has returned.
    public func isInFinalizer() -> Bool {
        var ar = lua_Debug()
        var level: Int32 = 0
        while lua_getstack(L, level, &ar) != 0 {
            if lua_getinfo(L, "n", &ar) != 0, let what = ar.namewhat, let name = ar.name,
                String(cString: what) == "metamethod", String(cString: name) == "__gc"
            {
                return true
            }
            level += 1
        }
        return false
    }
}
