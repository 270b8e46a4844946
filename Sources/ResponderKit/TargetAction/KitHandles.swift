import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// Handles of Swift-side registrations (SPEC §2.10): `onChange`, `node.on.*`. A handle is the
/// prelude's `responder.handle` object; its `cancel` calls a Swift remover closure whose
/// upvalues name the registration.
enum KitHandles {
    /// Remover of an `onChange` observer: upvalue 2 the State/Binding, 3 the observer's token.
    static let removeObserver: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let token = Int(luashim_tointeger(L, luashim_upvalueindex(3), nil))
        if let s = m.object(at: luashim_upvalueindex(2), .state, as: StateBox.self) {
            s.observers.removeAll { $0.token == token }
        } else if let b = m.object(at: luashim_upvalueindex(2), .binding, as: BindingBox.self) {
            b.observers.removeAll { $0.token == token }
        }
        return 0
    }

    /// Remover of a dispatch-table entry or tap action: upvalue 2 the node, 3 the entry's id.
    static let removeEntry: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        guard let node = m.node(at: luashim_upvalueindex(2)),
            let id = m.runtime.string(at: luashim_upvalueindex(3))
        else { return 0 }
        m.kit.kit(node)?.handlers.removeAll { $0.id == id }
        node.removeTapAction(id: id)
        return 0
    }

    /// Remover of an `addTarget` or `canPerform` registration: upvalue 2 the node, 3 the
    /// registration's token (a target replaced since, or a declaration replaced by a second
    /// `canPerform` of its selector, is not removed).
    static let removeToken: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        guard let node = m.node(at: luashim_upvalueindex(2)), let k = m.kit.kit(node) else { return 0 }
        let token = Int(luashim_tointeger(L, luashim_upvalueindex(3), nil))
        k.handlers.removeAll { $0.token == token }
        k.performers.removeAll { p in
            guard p.token == token else { return false }
            k.releaseSelector(p.selector)
            return true
        }
        return 0
    }
}

extension ModuleState {
    /// Pushes a handle of kind `kind` whose `cancel` calls `remover` with the `nup` values on
    /// top of the stack as its upvalues 2… (they are popped).
    func pushKitHandle(_ kind: String, remover: LuaSwiftFunction, upvalues nup: Int32) {
        pushHandle(kind, standingFor: nil, remover: remover, upvalues: nup)
    }

    /// Pushes a handle of kind `kind` that stands for `node` (it chains as the node does and
    /// equals it: SPEC §2.4 and §2.10) and whose `cancel` calls `remover` with the `nup` values on
    /// top of the stack as its upvalues 2… (they are popped).
    func pushKitNodeHandle(_ kind: String, _ node: Node, remover: LuaSwiftFunction, upvalues nup: Int32) {
        pushHandle(kind, standingFor: node, remover: remover, upvalues: nup)
    }

    /// The prelude's `makeHandle(kind, remove)`, or `nodeHandle(kind, node, remove)` with a node;
    /// when it fails, nil or the node.
    private func pushHandle(_ kind: String, standingFor node: Node?, remover: LuaSwiftFunction, upvalues nup: Int32) {
        EnvironmentBinding.ensureLoaded(self)
        luashim_push_swift_closure(L, remover, nup)
        let removerIndex = lua_gettop(L)
        let maker = node == nil ? EnvironmentBinding.handleMakerKey : EnvironmentBinding.nodeHandleMakerKey
        lua_getfield(L, luashim_registryindex(), maker)
        runtime.pushString(kind)
        if let node { push(node) }
        lua_pushvalue(L, removerIndex)
        if runtime.callKeepingError(node == nil ? 2 : 3, 1) != LUA_OK {
            luashim_pop(L, 1)
            push(node)
        }
        luashim_remove(L, removerIndex)
    }
}
