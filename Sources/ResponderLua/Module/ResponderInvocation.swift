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
    init(_ context: DispatchContext) {
        path = context.path
        nodeIndex = context.nodeIndex
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

    /// Runs one responder function: `fn(value, ctx)`.
    func invoke(_ kind: ResponderKind, _ slot: FunctionSlot, _ value: Value, _ ctx: DispatchContext) -> ResponderResult {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        pushFunction(slot.node, slot.slot)
        guard isCallable(at: -1) else {
            return .thrown(ValueBinding.luaError(self, message: "\(kind.rawValue): its function was released", traceback: nil, node: ctx.node))
        }
        let fnIndex = lua_gettop(L)
        push(value)
        if slot.wantsContext { pushFresh(ContextBox(ctx), .context) } else { lua_pushnil(L) }
        let status = runtime.callKeepingError(2, 1)
        if status != LUA_OK { return failed(ctx) }
        if world.pendingAbort != nil || pendingErrorSet { return .aborted }
        switch kind {
        case .receiveEvent, .receiveError:
            switch lua_type(L, -1) {
            case LUA_TNIL: return .notHandled
            case LUA_TBOOLEAN: return lua_toboolean(L, -1) != 0 ? .handled : .notHandled
            default: return wrongReturn(kind, fnIndex, "true, false or nil", ctx)
            }
        case .handleEvent, .handleError:
            return .handled
        case .transformEvent, .catchError:
            if let v = self.value(at: -1), v.kind == .event { return .value(v) }
            return wrongReturn(kind, fnIndex, "an event", ctx)
        case .transformError:
            if let v = self.value(at: -1), v.kind == .error { return .value(v) }
            return wrongReturn(kind, fnIndex, "an error", ctx)
        default:
            return .notHandled
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

    func wrongReturn(_ kind: ResponderKind, _ fnIndex: Int32, _ expected: String, _ ctx: DispatchContext) -> ResponderResult {
        let got = lua_type(L, -1) == LUA_TNONE ? "nothing" : kindName(at: -1)
        var ar = lua_Debug()
        lua_pushvalue(L, fnIndex)
        var place = ""
        if lua_getinfo(L, ">S", &ar) != 0, ar.linedefined > 0 {
            let src = withUnsafePointer(to: &ar.short_src) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(LUA_IDSIZE)) { String(cString: $0) }
            }
            place = "\(src):\(ar.linedefined): "
        }
        let message = "\(place)\(kind.rawValue) returned \(got) (\(expected) expected)"
        return .thrown(ValueBinding.luaError(self, message: message, traceback: nil, node: ctx.node))
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
