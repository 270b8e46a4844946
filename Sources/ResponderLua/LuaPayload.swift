import CLua
import CLuaShim
import ResponderEngine

/// The fields of a Lua-made event or error: a Lua table held through a registry reference
/// that is released when the Swift value goes away.
final class LuaPayload: ValuePayload {
    let handle: StateHandle
    let ref: Int32
    /// Keys left out of descriptions (LuaError's long traceback).
    let hiddenKeys: Set<String>

    /// Takes the table on top of the stack (popped).
    init(handle: StateHandle, popping L: OpaquePointer, hiddenKeys: Set<String> = []) {
        self.handle = handle
        self.ref = luaL_ref(L, luashim_registryindex())
        self.hiddenKeys = hiddenKeys
    }

    deinit {
        if let L = handle.L { luaL_unref(L, luashim_registryindex(), ref) }
    }

    func pushFields(_ L: OpaquePointer) {
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(ref))
    }

    func fieldsDescription() -> String {
        guard let L = handle.L else { return "" }
        let rt = LuaRuntime.of(L)
        pushFields(L)
        let t = lua_gettop(L)
        var pairs: [(String, String)] = []
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            let key: String
            if lua_type(L, -2) == LUA_TSTRING {
                key = rt.string(at: -2) ?? "?"
            } else {
                lua_pushvalue(L, -2)
                key = "[" + rt.describe(-1) + "]"
                luashim_pop(L, 1)
            }
            if !hiddenKeys.contains(key) {
                pairs.append((key, LuaPayload.render(L, rt, -1)))
            }
            luashim_pop(L, 1)
        }
        luashim_pop(L, 1)
        pairs.sort { $0.0 < $1.0 }
        return pairs.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")
    }

    func stringField(_ name: String) -> String? {
        guard let L = handle.L else { return nil }
        let rt = LuaRuntime.of(L)
        pushFields(L)
        rt.pushString(name)
        lua_rawget(L, -2)
        let s = lua_type(L, -1) == LUA_TSTRING ? rt.string(at: -1) : nil
        luashim_pop(L, 2)
        return s
    }

    /// Renders a field value: strings quoted, everything else as `tostring` shows it.
    static func render(_ L: OpaquePointer, _ rt: LuaRuntime, _ index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TSTRING:
            return FieldsPayload.quote(rt.string(at: index) ?? "")
        case LUA_TTABLE:
            if luaL_getmetafield(L, index, "__tostring") != LUA_TNIL {
                luashim_pop(L, 1)
                return rt.describe(index)
            }
            return "{…}"
        default:
            return rt.describe(index)
        }
    }
}
