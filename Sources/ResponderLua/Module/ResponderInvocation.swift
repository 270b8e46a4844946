import CLua
import CLuaShim
import ResponderEngine

/// Lua's `ctx`: what a responder may read about its dispatch, kept valid for as long as Lua holds
/// it (a script may store `ctx` and read it after the dispatch is gone). It holds the fixed path
/// strongly instead of the engine's non-owning ``DispatchContext``.
final class ContextBox {
    /// The fixed dispatch path, origin first.
    let path: [Node]
    /// The index in ``path`` of the node the responder is registered on.
    let nodeIndex: Int
    /// The box and the path it keeps (counted whole: the path may outlive its dispatch).
    private let memory: MemoryAccount
    init(_ context: DispatchContext, meter: MemoryMeter) {
        path = context.path
        nodeIndex = context.nodeIndex
        var memory = MemoryAccount(meter)
        memory.charge(MemoryMeter.Cost.object(24) + MemoryMeter.Cost.array(path.count))
        self.memory = memory
    }
    /// The node the responder is registered on.
    var node: Node { path[nodeIndex] }
    /// The node where the dispatch started.
    var origin: Node { path[0] }
}

/// Calling Lua responder functions from the engine and turning what they do into results.
extension ModuleState {
    /// Builds the engine body for a responder whose Lua function is at `index`.
    func makeBody(_ kind: ResponderKind, node: Node, functionAt index: Int32) -> ResponderBody {
        let slot = FunctionSlot(self, node: node, functionAt: index)
        // [unowned(unsafe) self]: bodies run only in this state's dispatches (proof at `ModuleState`)
        return { [unowned(unsafe) self] value, ctx in
            self.invoke(kind, slot, value, ctx)
        }
    }

    /// Runs one responder function: `fn(value, ctx)`, and says what it returned in the engine's
    /// words; what that means for the dispatch is the engine's to decide
    /// (``ResponderKind/outcome(of:)``).
    func invoke(_ kind: ResponderKind, _ slot: FunctionSlot, _ value: Value, _ ctx: DispatchContext) -> ResponderResult
    {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        pushFunction(slot.node, slot.slot)
        guard isCallable(at: -1) else {
            return .thrown(
                ValueBinding.luaError(
                    self, message: "\(kind.rawValue): its function was released", traceback: nil, node: ctx.node))
        }
        push(value)
        if slot.wantsContext { pushFresh(ContextBox(ctx, meter: world.meter), .context) } else { lua_pushnil(L) }
        let status = runtime.callKeepingError(2, 1)
        if status != LUA_OK { return failed(ctx) }
        if world.pendingAbort != nil || pendingErrorSet { return .aborted }
        switch lua_type(L, -1) {
        case LUA_TNIL, LUA_TNONE: return .nothing
        case LUA_TBOOLEAN: return lua_toboolean(L, -1) != 0 ? .handled : .notHandled
        default:
            if let v = self.value(at: -1) { return .value(v) }
            return .unusable(kindName(at: -1))
        }
    }

    /// The function raised: a limit or a pending abort unwinds; an error value goes on as it is;
    /// anything else becomes a `LuaError`.
    func failed(_ ctx: DispatchContext) -> ResponderResult {
        let c = runtime.control.pointee
        if c.limitRaised != 0 || c.budgetExceeded != 0 || c.interrupt != 0 {
            setPendingError()
            return .aborted
        }
        if world.pendingAbort != nil || pendingErrorSet {
            return .aborted
        }
        if let v = value(at: -1), v.kind == .error {
            _ = runtime.takeTraceback()
            return .thrown(v)
        }
        let message = runtime.describeError(at: -1)
        let traceback = runtime.takeTraceback()
        return .thrown(ValueBinding.luaError(self, message: message, traceback: traceback, node: ctx.node))
    }

    // MARK: - pending errors (limits unwinding through dispatches)

    /// Keeps the error value on top of the stack (not popped) to re-raise at the outermost call.
    package func setPendingError() {
        lua_pushvalue(L, -1)
        lua_setfield(L, luashim_registryindex(), "responder.pendingError")
        pendingErrorSet = true
    }

    /// Pushes the pending error (and clears it).
    package func pushPendingError() {
        lua_getfield(L, luashim_registryindex(), "responder.pendingError")
        lua_pushnil(L)
        lua_setfield(L, luashim_registryindex(), "responder.pendingError")
        pendingErrorSet = false
    }
}
