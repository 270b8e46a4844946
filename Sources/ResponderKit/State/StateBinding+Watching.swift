import CLua
import CLuaShim
import ResponderLua

/// Custom bindings whose `onChange` observers watch what their `get` returns (SPEC §2.9).
extension ModuleState {
    /// Registry key of the custom bindings that have `onChange` observers (weak keys).
    static let watchedBindingsKey = "responder.watchedBindings"

    /// Adds the custom binding at `index` to the bindings State writes re-read.
    func watchBinding(at index: Int32) {
        let bi = lua_absindex(L, index)
        if lua_getfield(L, luashim_registryindex(), Self.watchedBindingsKey) != LUA_TTABLE {
            luashim_pop(L, 1)
            lua_createtable(L, 0, 1)
            lua_createtable(L, 0, 1)
            runtime.pushString("k")
            lua_setfield(L, -2, "__mode")
            lua_setmetatable(L, -2)
            lua_pushvalue(L, -1)
            lua_setfield(L, luashim_registryindex(), Self.watchedBindingsKey)
        }
        lua_pushvalue(L, bi)
        lua_pushboolean(L, 1)
        lua_rawset(L, -3)
        luashim_pop(L, 1)
        kit.watchesBindings = true
    }

    /// A custom `Binding { get, set }` reads other state: its `onChange` observers fire when
    /// what `get` returns changed, however it changed (a write to a State it reads, or through
    /// the binding), as SwiftUI compares `onChange(of:)` values when the view updates. Called
    /// after every State write and every write through a custom binding: each watched binding's
    /// `get` runs and is compared with the value its observers saw last (they fired only for
    /// writes through the binding itself; found by an acceptance probe). A failing `get` is
    /// reported from the first observer's node, except `raising`'s (the binding the script wrote
    /// through): `KitScriptRaise` is thrown with its error on top, as for a failing `set`.
    func recheckCustomBindings(raising: BindingBox? = nil) throws {
        guard kit.watchesBindings, kit.bindingWrites == 0 else { return }
        let top = lua_gettop(L)
        var keep = top
        defer { lua_settop(L, keep) }
        guard lua_getfield(L, luashim_registryindex(), Self.watchedBindingsKey) == LUA_TTABLE else { return }
        // a snapshot: observers may watch more bindings while they run
        let watched = lua_gettop(L)
        lua_createtable(L, 8, 0)
        let list = lua_gettop(L)
        var count: lua_Integer = 0
        lua_pushnil(L)
        while lua_next(L, watched) != 0 {
            luashim_pop(L, 1)
            lua_pushvalue(L, -1)
            count += 1
            lua_rawseti(L, list, count)
        }
        if count == 0 {
            kit.watchesBindings = false
            return
        }
        var i: lua_Integer = 1
        while i <= count {
            defer { i += 1 }
            lua_settop(L, list)
            lua_rawgeti(L, list, i)
            let bi = lua_gettop(L)
            guard let box = object(at: bi, .binding, as: BindingBox.self), box.isCustom else { continue }
            box.observers.removeAll { $0.fn.node == nil }
            if box.observers.isEmpty {
                lua_pushvalue(L, bi)
                lua_pushnil(L)
                lua_rawset(L, watched)
                continue
            }
            // observers fire only while their node is mounted (SPEC §2.10): without one, `get`
            // is not run (a binding of an earlier test's world stays quiet)
            guard let first = box.observers.lazy.compactMap({ $0.fn.node }).first(where: { $0.isMounted }) else {
                continue
            }
            guard readBinding(box, at: bi) else {
                if box === raising {
                    lua_copy(L, -1, top + 1)  // the error, where the stack is cut back to
                    keep = top + 1
                    throw KitScriptRaise()
                }
                try reportFailedCall(from: first)
                continue
            }
            let new = lua_gettop(L)
            lua_getiuservalue(L, bi, 3)
            let old = lua_gettop(L)
            if lua_rawequal(L, old, new) != 0 { continue }
            lua_pushvalue(L, new)
            lua_setiuservalue(L, bi, 3)
            try fire(box.observers, newAt: new, oldAt: old)
        }
    }
}
