import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// A node's `.disabled` setting (SPEC §2.10): a constant, or a State/Binding read at each input.
enum DisabledSetting {
    case constant(Bool)
    case bound(KitSlot)
}

/// SPEC §2.10's enabled state: `node:disabled(bool | binding)`, `node.isEnabled`, and the check
/// every simulated input and `sendActions` make before performing anything.
enum ControlsEnabled {
    /// `node:disabled(flag | State | Binding | nil)`: disables the node's subtree (nil clears the
    /// setting). Returns the node.
    static let disabled: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "disabled", "node", 1) }
        // (nil clears the setting; no argument at all is a mistake, as `.disabled()` is in SwiftUI)
        if lua_type(L, 2) == LUA_TNONE { return m.argError(1, "disabled", "boolean, State or Binding", 2) }
        switch m.disabledSetting(for: node, at: 2) {
        case .failure(let f): return f.status
        case .success(let setting): m.kit.kitCreating(node).disabled = setting
        }
        lua_settop(L, 1)
        return 1
    }
}

extension ModuleState {
    /// Reads the `disabled` value at `index` (a boolean, a State/Binding, or nil).
    func disabledSetting(for node: Node, at index: Int32, field: String? = nil) -> Result<DisabledSetting?, KitFailure>
    {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE:
            return .success(nil)
        case LUA_TBOOLEAN:
            return .success(.constant(lua_toboolean(L, index) != 0))
        default:
            guard isBindable(at: index) else {
                let got = kindName(at: index)
                if let field {
                    return .failure(
                        KitFailure(
                            status: fail("bad field '\(field)' (boolean, State or Binding expected, got \(got))")))
                }
                return .failure(KitFailure(status: argError(1, "disabled", "boolean, State or Binding", index)))
            }
            return .success(.bound(KitSlot(self, node: node, valueAt: index)))
        }
    }

    /// Pushes the current value of the State or Binding at `index`; false (error on top) when a
    /// custom binding's `get` raised.
    func pushBindableValue(at index: Int32) -> Bool {
        let i = lua_absindex(L, index)
        if object(at: i, .state, as: StateBox.self) != nil {
            lua_getiuservalue(L, i, 1)
            return true
        }
        if let b = object(at: i, .binding, as: BindingBox.self) { return readBinding(b, at: i) }
        lua_pushnil(L)
        return true
    }

    /// Whether `node` or one of its ancestors is disabled (SwiftUI: a `.disabled(true)` anywhere
    /// above wins; a `false` below cannot re-enable). A binding whose `get` raises is reported
    /// from its node and counts as enabled.
    func isDisabled(_ node: Node) throws -> Bool {
        var current: Node? = node
        while let n = current {
            if let k = kit.kit(n), let setting = k.disabled {
                switch setting {
                case .constant(let flag):
                    if flag { return true }
                case .bound(let slot):
                    let top = lua_gettop(L)
                    defer { lua_settop(L, top) }
                    slot.push(self)
                    if pushBindableValue(at: -1) {
                        if lua_toboolean(L, -1) != 0 { return true }
                    } else {
                        try reportFailedCall(from: n)
                    }
                }
            }
            if let k = kit.kit(n), k.loading != nil, try loadingState(n).disables { return true }
            current = n.parent
        }
        return false
    }

    /// An AsyncButton's state: whether one of its tasks runs, and whether that disables it.
    func loadingState(_ node: Node) throws -> (loading: Bool, disables: Bool) {
        guard let slot = kit.kit(node)?.loading else { return (false, false) }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        slot.push(self)
        guard lua_type(L, -1) == LUA_TFUNCTION else { return (false, false) }
        guard try kitCall(0, 2, from: node) else { return (false, false) }
        let loading = lua_toboolean(L, -2) != 0
        return (loading, loading && lua_toboolean(L, -1) != 0)
    }

    /// Checks `node` before the input `name` is performed. When it is disabled (or an AsyncButton
    /// still loading), records the action's trace with that decision and returns true: the
    /// caller performs nothing and returns `false` to the script.
    func refusesInput(_ name: String, _ node: Node) throws -> Bool {
        if try isDisabled(node) {
            world.recordRefused(name, at: node, decision: .disabled)
            return true
        }
        if try loadingState(node).loading {
            world.recordRefused(name, at: node, decision: .loading)
            return true
        }
        return false
    }

    /// Runs a simulated input: `false` to the script when the control refuses it, else `body`.
    /// The result of a simulated input that performed and has no value to return: `true` (a
    /// disabled control's `false` tells the two apart).
    func performed() -> Int32 {
        lua_pushboolean(L, 1)
        return 1
    }

    func kitInput(_ name: String, _ node: Node, _ body: () throws -> Int32) -> Int32 {
        let before = world.lastTrace
        defer { printNewActionTrace(since: before) }
        return kitAction {
            if try refusesInput(name, node) {
                lua_pushboolean(L, 0)
                return 1
            }
            return try world.performInput(name, at: node, body)
        }
    }
}
