import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// `node.on.tap(fn)`, `node.on.valueChange(fn)`, `node.on.textChange(fn)` (SPEC §2.9).
extension TargetAction {
    // MARK: - closure sugar

    /// The `node.on.*` names a node offers.
    static func sugar(_ node: Node) -> [String] {
        ControlKind.of(node)?.sugar ?? ["tap"]
    }

    static func pushOnProxy(_ m: ModuleState, _ node: Node) {
        let L = m.L
        lua_createtable(L, 1, 0)
        m.push(node)
        lua_rawseti(L, -2, 1)
        lua_getfield(L, luashim_registryindex(), onMetaKey)
        lua_setmetatable(L, -2)
    }

    /// `node.on.name`: the sugar function, or an error listing what the node offers.
    static let onIndex: LuaSwiftFunction = { L in
        let m = state(L)
        lua_rawgeti(L, 1, 1)
        guard let node = m.node(at: -1) else {
            lua_pushnil(L)
            return 1
        }
        let name = m.runtime.string(at: 2) ?? m.kindName(at: 2)
        let offered = sugar(node)
        guard offered.contains(name) else {
            let list = offered.map { "on.\($0)" }.joined(separator: ", ")
            return m.fail("\(node) does not support on.\(name) (it supports \(list))")
        }
        m.runtime.pushString(name)
        luashim_push_swift_closure(L, onFunction, 2)
        return 1
    }

    static let onNewIndex: LuaSwiftFunction = { L in
        let m = state(L)
        return m.fail("cannot assign to node.on (call node.on.name(fn) instead)")
    }

    /// `node.on.tap(fn())`, `node.on.valueChange(fn(value))`, `node.on.textChange(fn(text))`:
    /// adds a handler to the dispatch table (a tap gesture on plain nodes) with a generated id.
    /// Returns a handle whose `cancel` removes it.
    static let onFunction: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: luashim_upvalueindex(2)), let name = m.runtime.string(at: luashim_upvalueindex(3))
        else {
            return m.fail("node.on: lost its node")
        }
        // accept both node.on.tap(fn) and node.on:tap(fn)
        let fi: Int32 = lua_gettop(L) >= 2 && m.isCallable(at: 2) ? 2 : 1
        guard m.isCallable(at: fi) else { return m.argError(1, "on.\(name)", "function", fi) }
        let id = m.kit.generatedId("on.\(name)")
        if let kind = ControlKind.of(node), let k = m.kit.kit(node), k.control != nil {
            let slot = KitSlot(m, node: node, valueAt: fi)
            let handler: ControlHandler
            switch name {
            case "tap": handler = ControlHandler(event: .touchUpInside, id: id, title: nil, kind: .action(slot, .none))
            case "textChange":
                handler = ControlHandler(event: .editingChanged, id: id, title: nil, kind: .action(slot, .text))
            default:
                handler = ControlHandler(
                    event: .valueChanged, id: id, title: nil,
                    kind: .action(slot, kind == .stepper && k.control?.binding == nil ? .none : .value))
            }
            k.handlers.append(handler)
        } else {
            node.onTapGesture(count: 1, action: TapBinding.performAction(m, node, at: fi), id: id)
        }
        m.push(node)
        m.runtime.pushString(id)
        m.pushKitHandle("on.\(name)", remover: KitHandles.removeEntry, upvalues: 2)
        return 1
    }
}
