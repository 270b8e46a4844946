import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// The target of an `addTarget` entry. A node target is kept with the control (nodes live in
/// the tree); a table target is held weakly, as UIKit holds targets: once the script drops it
/// and the collector runs, the entry is gone (it no longer runs nor shows in `eventHandlers`).
final class TargetRef {
    private enum Storage {
        case strong(KitSlot)
        case weak(Int)
    }
    private let storage: Storage

    /// Registry key of the weak-valued table that holds table targets by token.
    static let weakTableKey = "responder.kit.weakTargets"

    /// Keeps the value at `index` (a node strongly with `node`, anything else weakly).
    init(_ m: ModuleState, node: Node, valueAt index: Int32) {
        let L = m.L
        let i = lua_absindex(L, index)
        if m.node(at: i) != nil {
            storage = .strong(KitSlot(m, node: node, valueAt: i))
            return
        }
        let token = m.kit.nextToken()
        Self.pushWeakTable(m)
        lua_pushvalue(L, i)
        lua_rawseti(L, -2, lua_Integer(token))
        luashim_pop(L, 1)
        storage = .weak(token)
    }

    /// Pushes the target (nil once a weakly held target was collected).
    func push(_ m: ModuleState) {
        switch storage {
        case .strong(let slot):
            slot.push(m)
        case .weak(let token):
            Self.pushWeakTable(m)
            lua_rawgeti(m.L, -1, lua_Integer(token))
            luashim_remove(m.L, -2)
        }
    }

    /// Whether a weakly held target was collected.
    func isGone(_ m: ModuleState) -> Bool {
        guard case .weak = storage else { return false }
        push(m)
        defer { luashim_pop(m.L, 1) }
        return lua_type(m.L, -1) == LUA_TNIL
    }

    private static func pushWeakTable(_ m: ModuleState) {
        let L = m.L
        if lua_getfield(L, luashim_registryindex(), weakTableKey) == LUA_TTABLE { return }
        luashim_pop(L, 1)
        luashim_newtable(L)
        luashim_newtable(L)
        m.runtime.pushString("v")
        lua_setfield(L, -2, "__mode")
        lua_setmetatable(L, -2)
        lua_pushvalue(L, -1)
        lua_setfield(L, luashim_registryindex(), weakTableKey)
    }
}
