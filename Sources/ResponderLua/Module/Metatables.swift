import CLua
import CLuaShim

extension ModuleState {
    /// Makes the metatable of the userdata kind `kind` and keeps a registry reference to it in
    /// `metatables`. Every such metatable has `fields` (metamethods such as `__tostring`), a
    /// `__gc` that releases the Swift object, `__name` (`responder.` + the kind's label) and a
    /// locked `__metatable`. `index` becomes `__index`: as it is when there are no `methods`,
    /// otherwise behind a lookup that tries the `methods` table first. Without `index` there is
    /// no `__index`. The Lua stack is left as it was.
    /// With `finalizer: false` there is no `__gc` (for userdata that hold no Swift object).
    /// `label` names the kind in `bad argument` messages (default: the module's own label).
    package func makeMetatable(
        kind: ObjectKind, label: String? = nil, fields: [(String, LuaSwiftFunction)],
        index: LuaSwiftFunction? = nil, methods: [(String, LuaSwiftFunction)] = [],
        finalizer: Bool = true
    ) {
        luashim_newtable(L)
        for (name, fn) in fields {
            luashim_push_swift_function(L, fn)
            lua_setfield(L, -2, name)
        }
        if let index {
            if methods.isEmpty {
                luashim_push_swift_function(L, index)
            } else {
                lua_createtable(L, 0, Int32(methods.count))
                for (name, fn) in methods {
                    luashim_push_swift_function(L, fn)
                    lua_setfield(L, -2, name)
                }
                luashim_push_swift_function(L, index)
                luashim_push_index(L)
            }
            lua_setfield(L, -2, "__index")
        }
        if finalizer {
            luashim_push_swift_function(L, WorldBinding.gc)
            lua_setfield(L, -2, "__gc")
        }
        let label = label ?? ObjectKind.coreLabels[kind.rawValue]
        runtime.pushString("responder." + label)
        lua_setfield(L, -2, "__name")
        runtime.pushString("locked")
        lua_setfield(L, -2, "__metatable")
        if metatables.count <= kind.rawValue {
            metatables += Array(repeating: LUA_NOREF, count: kind.rawValue + 1 - metatables.count)
            kindLabels += Array(repeating: "", count: kind.rawValue + 1 - kindLabels.count)
        }
        metatables[kind.rawValue] = luaL_ref(L, luashim_registryindex())
        kindLabels[kind.rawValue] = label
    }
}
