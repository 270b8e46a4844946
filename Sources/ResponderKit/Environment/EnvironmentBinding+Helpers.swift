import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// The Swift helpers the kit's prelude gets as `K` (node data, document-order traversal,
/// protected calls that report errors from a node, kind names), and what they share with the
/// rest of the kit.
extension EnvironmentBinding {
    /// `K.isNode(v)`.
    static let isNode: LuaSwiftFunction = { L in
        lua_pushboolean(L, state(L).node(at: 1) != nil ? 1 : 0)
        return 1
    }

    /// `K.setLoading(node, fn)`: an AsyncButton's loading predicate (see `NodeKit.loading`).
    static let setLoading: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1), lua_type(L, 2) == LUA_TFUNCTION else {
            return m.argError(1, "setLoading", "node and function", 1)
        }
        m.kit.kitCreating(node).loading = KitSlot(m, node: node, valueAt: 2)
        return 0
    }

    /// `K.raise(message)`: raises `message` at the innermost script line (past the kit's own
    /// chunks and C functions). `error(message, 2)` from the kit's Lua would name no line when
    /// the script called the kit function in tail position (`return post(1)`): the caller's
    /// frame is gone then, where a C function's caller stays (SPEC §2.1: "at the caller's
    /// `file:line`").
    static let raise: LuaSwiftFunction = { L in
        let m = state(L)
        return m.failAtScriptLine(m.runtime.string(at: 1) ?? "error")
    }

    /// `K.kindName(v)`: how `bad argument` messages name a value.
    static let kindName: LuaSwiftFunction = { L in
        let m = state(L)
        m.runtime.pushString(m.kindName(at: 1))
        return 1
    }

    /// `K.kit(node [, create])`: the node's kit table (nil when absent and `create` is falsy).
    static let kit: LuaSwiftFunction = { L in
        let m = state(L)
        guard m.node(at: 1) != nil else {
            lua_pushnil(L)
            return 1
        }
        let create = lua_toboolean(L, 2) != 0
        guard m.pushNodeData(1, create: create) else {
            lua_pushnil(L)
            return 1
        }
        m.runtime.pushString(kitKey)
        if lua_rawget(L, -2) == LUA_TTABLE || !create { return 1 }
        luashim_pop(L, 1)
        luashim_newtable(L)
        m.runtime.pushString(kitKey)
        lua_pushvalue(L, -2)
        lua_rawset(L, -4)
        return 1
    }

    /// `K.subtree(node)`: the nodes of the subtree that have a kit table, in document order.
    static let subtree: LuaSwiftFunction = { L in
        let m = state(L)
        guard let root = m.node(at: 1) else {
            lua_createtable(L, 0, 0)
            return 1
        }
        var found: [Node] = []
        var visited = 0
        root.forEachInSubtree { node in
            visited += 1
            if m.hasKit(node) { found.append(node) }
        }
        if m.runtime.charge(visited) { return 0 }
        m.push(found)
        return 1
    }

    /// `K.invoke(node, fn, ...)`: calls `fn(...)`; an error it raises is reported from `node`
    /// (limits and strict aborts go on unwinding).
    ///
    /// The call is an action, as a control's action is: a strict violation inside the callback
    /// (a `trigger` in an `onReceive` handler, say) aborts the script's call that ran it (`post`,
    /// a `props` assignment, `remove`, …) as a whole, and no `pcall` on the way can turn it into a
    /// `LuaError`. What the callback starts are top-level actions for `--trace`.
    static let invoke: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "invoke", "node", 1) }
        let nargs = lua_gettop(L) - 2
        return m.kitAction {
            let savedTop = m.topActionDepth
            m.topActionDepth = m.world.actionDepth
            defer { m.topActionDepth = savedTop }
            if m.runtime.callKeepingError(nargs, 0) == LUA_OK {
                lua_pushboolean(L, 1)
                return 1
            }
            let status = m.reportFailure(from: node)
            if status != 0 { return status }
            lua_pushboolean(L, 0)
            return 1
        }
    }

    /// `K.report(node, error, traceback)`: reports what a task body raised from its button.
    static let report: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "report", "node", 1) }
        let traceback = m.runtime.string(at: 3)
        lua_settop(L, 2)
        let error: Value
        if let v = m.value(at: 2), v.kind == .error {
            error = v
        } else {
            error = ValueBinding.luaError(m, message: m.runtime.describeError(at: 2), traceback: traceback, node: node)
        }
        do {
            _ = try m.world.report(error, from: node, location: m.location())
        } catch {
            return DispatchBinding.raise(m, error)
        }
        return 0
    }

    /// `K.isCancellation(v)`: whether `v` is a `CancellationError` (or a descendant).
    static let isCancellation: LuaSwiftFunction = { L in
        let m = state(L)
        let yes = m.value(at: 1).map { m.cancellationErrorType.isSame(orAncestorOf: $0.type) } ?? false
        lua_pushboolean(L, yes ? 1 : 0)
        return 1
    }
}

extension ModuleState {
    /// Whether the script used a name the kit's prelude provides (environment, notifications,
    /// the clock…), not merely a registration handle that loaded it: `explore` offers `advance`
    /// only then.
    package var isKitUsed: Bool {
        lua_getfield(L, luashim_registryindex(), EnvironmentBinding.usedKey)
        defer { luashim_pop(L, 1) }
        return lua_toboolean(L, -1) != 0
    }

    /// Whether the node has kit data (cheap: no Lua call).
    func hasKit(_ node: Node) -> Bool {
        guard pushIfCached(node) else { return false }
        let top = lua_gettop(L)
        defer { lua_settop(L, top - 1) }
        guard pushNodeData(top, create: false) else { return false }
        runtime.pushString(EnvironmentBinding.kitKey)
        return lua_rawget(L, -2) == LUA_TTABLE
    }

    /// Calls the prelude hook in registry slot `ref` with `node` and `moving` (whether the node
    /// disappears or appears because it is being moved, ``World/isMoving``); false when it
    /// raised (with `keepingError`, the error is kept as the pending error for the outermost call to raise;
    /// otherwise it is dropped: a limit is raised again by the count hook anyway).
    func callHook(_ ref: Int32, _ node: Node?, moving: Bool = false, keepingError: Bool = false) -> Bool {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(ref))
        push(node)
        lua_pushboolean(L, moving ? 1 : 0)
        if runtime.callKeepingError(2, 0) == LUA_OK { return true }
        if keepingError && !pendingErrorSet { setPendingError() }
        return false
    }

    /// A callback raised (its error value is on top of the stack): limits and strict aborts go
    /// on unwinding (returns LUASHIM_RAISE); anything else is reported from `node` as the error
    /// value itself or a `LuaError` (returns 0).
    func reportFailure(from node: Node) -> Int32 {
        if failureUnwinds() { return LUASHIM_RAISE }
        let error = failedCallError(from: node)
        luashim_pop(L, 1)
        do {
            _ = try world.report(error, from: node, location: location())
        } catch {
            return DispatchBinding.raise(self, error)
        }
        return 0
    }
}
