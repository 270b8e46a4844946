import CLua
import CLuaShim
import ResponderEngine

/// Keeps the node userdata graph in step with the engine tree, so that Lua's collector sees the
/// tree: a node's user values hold its parent, its first child and its next sibling (see
/// ``NodeSlot`` for where the parent is).
extension ModuleState {
    /// Pushes the mirrored parent of the node userdata at `index` (its userdata, or nil).
    func pushMirrorParent(_ index: Int32) {
        if lua_getiuservalue(L, index, NodeSlot.parentOrData) == LUA_TTABLE {
            lua_rawgeti(L, -1, NodeSlot.parentKey)
            luashim_remove(L, -2)
        }
    }

    /// Sets the mirrored parent of the node userdata at `index` to the value on top (popped).
    func setMirrorParent(_ index: Int32) {
        let idx = lua_absindex(L, index)
        if lua_getiuservalue(L, idx, NodeSlot.parentOrData) == LUA_TTABLE {
            lua_pushvalue(L, -2)
            lua_rawseti(L, -2, NodeSlot.parentKey)
            luashim_pop(L, 2)
        } else {
            luashim_pop(L, 1)
            lua_setiuservalue(L, idx, NodeSlot.parentOrData)
        }
    }

    /// Pushes the data table of the node userdata at `index` and returns true; when the node has
    /// none, makes it if `create` (moving the parent into it), else pushes nothing and returns false.
    @discardableResult
    package func pushNodeData(_ index: Int32, create: Bool) -> Bool {
        let idx = lua_absindex(L, index)
        if lua_getiuservalue(L, idx, NodeSlot.parentOrData) == LUA_TTABLE { return true }
        guard create else {
            luashim_pop(L, 1)
            return false
        }
        luashim_newtable(L)
        luashim_insert(L, -2)
        lua_rawseti(L, -2, NodeSlot.parentKey)  // the parent (or nil) moves into the table
        lua_pushvalue(L, -1)
        lua_setiuservalue(L, idx, NodeSlot.parentOrData)
        return true
    }

    /// Records `child` under `parent` (both must have userdata; pushes nothing).
    func mirrorLink(_ child: Node, under parent: Node) {
        push(parent)
        let p = lua_gettop(L)
        push(child)
        let c = lua_gettop(L)
        lua_pushvalue(L, p)
        setMirrorParent(c)
        lua_getiuservalue(L, p, NodeSlot.firstChild)
        lua_setiuservalue(L, c, NodeSlot.nextSibling)
        lua_pushvalue(L, c)
        lua_setiuservalue(L, p, NodeSlot.firstChild)
        lua_settop(L, p - 1)
    }

    /// Removes `child` from its mirrored parent's sibling list.
    ///
    /// During an action (a dispatch, a mount…) the engine may still visit the nodes of the tree
    /// `child` leaves (the dispatch path is fixed when it starts), and their responders' functions
    /// live in their userdata: both parts stay anchored until the outermost action ends.
    func mirrorUnlink(_ child: Node) {
        guard pushIfCached(child) else { return }
        let c = lua_gettop(L)
        anchorWhileActing(c)
        pushMirrorParent(c)
        if lua_type(L, -1) == LUA_TUSERDATA {
            let p = lua_gettop(L)
            anchorWhileActing(p)
            // walk the sibling list from the parent's first child
            lua_getiuservalue(L, p, NodeSlot.firstChild)
            if lua_rawequal(L, -1, c) != 0 {
                luashim_pop(L, 1)
                lua_getiuservalue(L, c, NodeSlot.nextSibling)
                lua_setiuservalue(L, p, NodeSlot.firstChild)
            } else {
                while lua_type(L, -1) == LUA_TUSERDATA {
                    lua_getiuservalue(L, -1, NodeSlot.nextSibling)
                    if lua_rawequal(L, -1, c) != 0 {
                        luashim_pop(L, 1)
                        lua_getiuservalue(L, c, NodeSlot.nextSibling)
                        lua_setiuservalue(L, -2, NodeSlot.nextSibling)
                        break
                    }
                    luashim_remove(L, -2)
                }
                luashim_pop(L, 1)
            }
        }
        lua_pushnil(L)
        setMirrorParent(c)
        lua_pushnil(L)
        lua_setiuservalue(L, c, NodeSlot.nextSibling)
        lua_settop(L, c - 1)
    }

    /// Keeps the value at `index` reachable for Lua's collector until the outermost engine action
    /// ends (nothing outside an action).
    func anchorWhileActing(_ index: Int32) {
        guard world.actionDepth > 0, lua_type(L, index) != LUA_TNIL else { return }
        let idx = lua_absindex(L, index)
        if lua_getfield(L, luashim_registryindex(), "responder.actionAnchors") != LUA_TTABLE {
            luashim_pop(L, 1)
            luashim_newtable(L)
            lua_pushvalue(L, -1)
            lua_setfield(L, luashim_registryindex(), "responder.actionAnchors")
            // [unowned(unsafe) self]: the world is owned by this module state (proof at `ModuleState`)
            world.afterActions = { [unowned(unsafe) self] in
                lua_pushnil(self.L)
                lua_setfield(self.L, luashim_registryindex(), "responder.actionAnchors")
            }
        }
        lua_pushvalue(L, idx)
        lua_rawseti(L, -2, lua_Integer(lua_rawlen(L, -2) + 1))
        luashim_pop(L, 1)
    }

    /// Pushes the node's table `slot` (``NodeSlot/props`` or ``NodeSlot/functions``), creating
    /// it when absent.
    package func pushNodeTable(_ node: Node, _ slot: Int32) {
        push(node)
        pushNodeData(-1, create: true)
        luashim_remove(L, -2)
        guard slot == NodeSlot.props else { return }
        if lua_rawgeti(L, -1, NodeSlot.propsKey) != LUA_TTABLE {
            luashim_pop(L, 1)
            luashim_newtable(L)
            lua_pushvalue(L, -1)
            lua_rawseti(L, -3, NodeSlot.propsKey)
        }
        luashim_remove(L, -2)
    }

    /// Stores the function at `index` in the node's function table; returns its slot.
    package func storeFunction(_ node: Node, at index: Int32) -> Int32 {
        let idx = lua_absindex(L, index)
        pushNodeTable(node, NodeSlot.functions)
        lua_pushvalue(L, idx)
        let slot = luaL_ref(L, -2)
        luashim_pop(L, 1)
        return slot
    }

    /// Pushes the function stored in `slot` of `node` (nil when gone).
    package func pushFunction(_ node: Node, _ slot: Int32) {
        guard pushIfCached(node) else {
            lua_pushnil(L)
            return
        }
        if lua_getiuservalue(L, -1, NodeSlot.parentOrData) != LUA_TTABLE {
            luashim_pop(L, 2)
            lua_pushnil(L)
            return
        }
        lua_rawgeti(L, -1, lua_Integer(slot))
        luashim_replace(L, -3)
        luashim_pop(L, 1)
    }

    /// Releases a function slot (its responder went away).
    package func releaseFunction(_ node: Node, _ slot: Int32) {
        guard pushIfCached(node) else { return }
        if lua_getiuservalue(L, -1, NodeSlot.parentOrData) == LUA_TTABLE {
            luaL_unref(L, -1, slot)
        }
        luashim_pop(L, 2)
    }
}

/// Owns one stored Lua function of a node; releases it when the Swift side lets go
/// (a `once` responder that ran, `removeResponder`, a replaced tap action…).
///
/// Lifetime proof for `node`: a slot is owned by an entry, tap action or subscriber of `node`,
/// and those are held by `node` itself and otherwise only while `node` is held too: by a trace's
/// list snapshots (`Trace.deinit` releases them before its path, which holds the node), by
/// `World.publish` (which holds the selected subscribers' nodes until it ends) and by `tap`'s
/// loop over the node's actions (its caller holds the node). So `node` is alive whenever the slot
/// is used or released. (A weak reference would put a side table on every node with a function
/// and slow down all its reference counting.) Test: "functions stored on nodes" in
/// scripts/tests/safety/lifetimes_spec.lua.
final class FunctionSlot {
    let handle: StateHandle
    unowned(unsafe) let node: Node
    let slot: Int32
    /// Whether the function can receive a second argument (so `ctx` is worth building).
    let wantsContext: Bool

    init(_ m: ModuleState, node: Node, functionAt index: Int32) {
        self.handle = m.handle
        self.node = node
        self.slot = m.storeFunction(node, at: index)
        var ar = lua_Debug()
        if lua_type(m.L, index) != LUA_TFUNCTION {
            wantsContext = true  // a callable table or userdata (a busted spy): pass everything
        } else {
            lua_pushvalue(m.L, index)
            if lua_getinfo(m.L, ">u", &ar) != 0 {
                wantsContext = ar.nparams >= 2 || ar.isvararg != 0  // C functions count as vararg
            } else {
                wantsContext = true
            }
        }
    }

    deinit {
        guard let L = handle.L, let m = LuaRuntime.of(L).moduleState else { return }
        m.releaseFunction(node, slot)
    }
}
