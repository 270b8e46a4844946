import CLua
import CLuaShim
import ResponderLua

/// The Lua half of `responder repl` (`Lua/repl.lua`): readable printing, Tab-completion candidates and the
/// `.tree`, `.trace` and `.warnings` reports. Loaded once at start; the chunk returns a table of
/// functions that the session keeps in the registry (nothing is added to the globals, so
/// completion and scripts see a clean global table).
enum ReplLuaSupport {
    static let chunkName = "=Sources/ResponderREPL/Lua/repl.lua"

    /// `rawmeta(v)`: the real metatable of `v` (the module locks its metatables with
    /// `__metatable`, which only `getmetatable` honours), or nil.
    static let rawMetatable: LuaSwiftFunction = { L in
        if lua_getmetatable(L, 1) == 0 { lua_pushnil(L) }
        return 1
    }

    /// `uptables(f)`: an array of the table upvalues of `f`.
    static let upvalueTables: LuaSwiftFunction = { L in
        lua_createtable(L, 0, 0)
        guard lua_type(L, 1) == LUA_TFUNCTION else { return 1 }
        var n: Int32 = 1
        var k: lua_Integer = 1
        while n < 256, lua_getupvalue(L, 1, n) != nil {
            if lua_type(L, -1) == LUA_TTABLE {
                lua_rawseti(L, -2, k)
                k += 1
            } else {
                luashim_pop(L, 1)
            }
            n += 1
        }
        return 1
    }
    static let source: [UInt8] = PackageResources.repl_lua
}
