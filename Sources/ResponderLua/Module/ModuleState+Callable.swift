import CLua
import CLuaShim

extension ModuleState {
    /// Whether the value at `index` can be called: a function, or a table or userdata whose
    /// metatable has `__call` (a busted spy, a callable object). Reads the metatable raw, so
    /// no metamethod runs. Everywhere a function is taken, such a callable is taken too.
    package func isCallable(at index: Int32) -> Bool {
        let t = lua_type(L, index)
        if t == LUA_TFUNCTION { return true }
        guard t == LUA_TTABLE || t == LUA_TUSERDATA, lua_getmetatable(L, index) != 0 else { return false }
        defer { luashim_pop(L, 2) }
        runtime.pushString("__call")
        return lua_rawget(L, -2) != LUA_TNIL
    }
}
