import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// The environment values and preferences a node sets, as lines for pictures
/// (`env theme = "dark"`, `preference Total = 3`).
///
/// Read straight from the node's kit table (`environment.lua` keeps `env` and `prefs` there)
/// without calling Lua: no metamethod runs, so drawing cannot fail or loop.
enum EnvironmentNotes {
    /// The longest value text shown; longer ones end with `…`.
    static let maximumValueLength = 40

    /// `env KEY = VALUE` for each value `node:environment` set on `node`, then
    /// `preference NAME = VALUE` for each value `node:preference` set, keys sorted.
    static func lines(_ m: ModuleState, _ node: Node) -> [String] {
        let L = m.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, 8) != 0, m.pushIfCached(node) else { return [] }
        guard m.pushNodeData(-1, create: false) else { return [] }
        m.runtime.pushString(EnvironmentBinding.kitKey)
        guard lua_rawget(L, -2) == LUA_TTABLE else { return [] }
        let kit = lua_gettop(L)
        var lines: [String] = []
        lines += entries(m, kit, field: "env", prefix: "env") { key in text(m, key, quoted: false) }
        lines += entries(m, kit, field: "prefs", prefix: "preference") { key in
            // a preference key is the table `Preference(name)` made; its name is a raw field
            guard lua_type(L, key) == LUA_TTABLE else { return text(m, key) }
            lua_getfield(L, key, "name")
            defer { luashim_pop(L, 1) }
            return text(m, -1, quoted: false)
        }
        return lines
    }

    /// The sorted `prefix KEY = VALUE` lines of the table in field `field` of the kit table.
    private static func entries(
        _ m: ModuleState, _ kit: Int32, field: String, prefix: String,
        key name: (Int32) -> String
    ) -> [String] {
        let L = m.L
        lua_getfield(L, kit, field)
        defer { luashim_pop(L, 1) }
        guard lua_type(L, -1) == LUA_TTABLE else { return [] }
        let table = lua_gettop(L)
        var pairs: [(String, String)] = []
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            // [-0, +0] stack: table, key, value
            let value = text(m, -1)
            let key = name(lua_absindex(L, -2))
            pairs.append((key, value))
            luashim_pop(L, 1)
        }
        pairs.sort { $0.0 < $1.0 }
        return pairs.map { "\(prefix) \($0.0) = \($0.1)" }
    }

    /// A short text of the value at `index` that runs no metamethod: strings quoted, numbers and
    /// booleans as Lua writes them, tables `{…}` (`{}` when empty), other values by their type.
    static func text(_ m: ModuleState, _ index: Int32, quoted: Bool = true) -> String {
        let L = m.L
        let at = lua_absindex(L, index)
        switch lua_type(L, at) {
        case LUA_TNIL: return "nil"
        case LUA_TBOOLEAN: return lua_toboolean(L, at) != 0 ? "true" : "false"
        case LUA_TNUMBER, LUA_TSTRING:
            lua_pushvalue(L, at)  // a copy: converting a number in place would confuse lua_next
            defer { luashim_pop(L, 1) }
            let isString = lua_type(L, at) == LUA_TSTRING
            var s = m.runtime.string(at: -1) ?? ""
            if s.count > maximumValueLength { s = String(s.prefix(maximumValueLength)) + "…" }
            return isString && quoted ? "\"" + s + "\"" : s
        case LUA_TTABLE:
            lua_pushnil(L)
            if lua_next(L, at) != 0 {
                luashim_pop(L, 2)
                return "{…}"
            }
            return "{}"
        default:
            return String(cString: lua_typename(L, lua_type(L, at)))
        }
    }
}
