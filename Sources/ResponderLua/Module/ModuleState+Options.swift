import CLua
import CLuaShim

extension ModuleState {
    /// Raises for a key of the options table at `index` that `fname` does not take (a typo such
    /// as `{ idd = "x" }` must not pass in silence): the message lists the options and, for a
    /// near miss, suggests one. Returns nil when every key is known. Reads the table raw.
    package func checkOptionKeys(_ index: Int32, _ fname: String, allowed: [String]) -> Int32? {
        let t = lua_absindex(L, index)
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            luashim_pop(L, 1)
            let key = lua_type(L, -1) == LUA_TSTRING ? runtime.string(at: -1) : nil
            if let key, allowed.contains(key) { continue }
            let shown = key.map { "'\($0)'" } ?? "key of type \(kindName(at: -1))"
            luashim_pop(L, 1)
            var message = "bad option \(shown) to '\(fname)' (options are \(allowed.joined(separator: ", "))"
            if let key, let guess = Suggestions.nearest(to: key, in: allowed) {
                message += "; did you mean '\(guess)'?"
            }
            return fail(message + ")")
        }
        return nil
    }
}
