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
        reserveKind(kind)
        metatables[kind.rawValue] = luaL_ref(L, luashim_registryindex())
        kindLabels[kind.rawValue] = label
    }

    /// Says how to make the metatable of `kind` (the arguments of
    /// ``makeMetatable(kind:label:fields:index:methods:finalizer:)``, then `then`, if any) when it
    /// is first needed: ``metatable(_:)`` makes it then. A state that never makes an object of a
    /// kind (most spec files make no node) never makes its metatable; until it exists no userdata
    /// can have it, so a check against a kind not made yet simply fails. `label` names the kind in
    /// messages from the start.
    package func lazyMetatable(
        kind: ObjectKind, label: String? = nil, fields: [(String, LuaSwiftFunction)],
        index: LuaSwiftFunction? = nil, methods: [(String, LuaSwiftFunction)] = [],
        finalizer: Bool = true, then: ((ModuleState) -> Void)? = nil
    ) {
        reserveKind(kind)
        kindLabels[kind.rawValue] =
            label ?? (kind.rawValue < ObjectKind.coreLabels.count ? ObjectKind.coreLabels[kind.rawValue] : "object")
        metatableMakers[kind.rawValue] = { m in
            m.makeMetatable(
                kind: kind, label: label, fields: fields, index: index, methods: methods, finalizer: finalizer)
            then?(m)
        }
    }

    /// Room for `kind` in `metatables`, `kindLabels` and `metatableMakers`.
    private func reserveKind(_ kind: ObjectKind) {
        // (appends: cheaper than adding arrays, which runs unspecialized generic code)
        while metatables.count <= kind.rawValue { metatables.append(LUA_NOREF) }
        while kindLabels.count <= kind.rawValue { kindLabels.append("") }
        while metatableMakers.count <= kind.rawValue { metatableMakers.append(nil) }
    }
}
