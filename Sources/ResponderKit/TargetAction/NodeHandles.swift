import CLua
import CLuaShim
import ResponderLua

/// Registration handles that stand for their node (SPEC §2.4 and §2.10): what the kit's
/// `onAppear`, `onDisappear`, `onPreferenceChange` and `onAsyncTask*` return. The prelude
/// (environment.lua) gives them their metatable and behaviour; ``ModuleState/node(at:)``
/// accepts one wherever a node is expected.
enum NodeHandles {
    /// `K.nodeHandle(node)`: a new registration handle that stands for `node` (user value 1),
    /// with the prelude's `nodeHandleMT`.
    static let make: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        guard let node = m.node(at: 1) else { return m.argError(1, "nodeHandle", "node", 1) }
        _ = lua_newuserdatauv(L, 0, 1)
        m.push(node)
        _ = lua_setiuservalue(L, -2, 1)
        lua_getfield(L, luashim_registryindex(), ModuleState.nodeHandleKey)
        _ = lua_setmetatable(L, -2)
        return 1
    }

    /// `K.handleNode(v)`: the node a registration handle stands for, or nil for anything else.
    static let node: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        m.push(m.handledNode(at: 1))
        return 1
    }
}
