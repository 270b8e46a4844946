import CLua
import CLuaShim
import ResponderEngine

/// Downward publishing: `node:publisher(T [, opts])`, `pub(event)`, `node:subscribe(T, fn)` (SPEC §2.7).
enum PublishBinding: ModuleBinding {
    static let publisher: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "publisher", "node", 1) }
        guard let type = m.valueType(at: 2), type.kind == .event else {
            return m.argError(1, "publisher", "event type", 2)
        }
        var destination = PublishingDestination.lastLevel
        var id: String?
        if !luashim_isnoneornil(L, 3) {
            guard lua_type(L, 3) == LUA_TTABLE else { return m.argError(2, "publisher", "options table", 3) }
            if let status = m.checkOptionKeys(3, "publisher", allowed: ["destination", "id"]) { return status }
            if luashim_rawgetfield(L, 3, "destination") != LUA_TNIL {
                guard let s = m.runtime.string(at: -1), let d = PublishingDestination(rawValue: s) else {
                    return m.fail(
                        "bad option 'destination' to 'publisher' (\"lastLevel\", \"firstLevel\" or \"allLevels\" expected)"
                    )
                }
                destination = d
            }
            if luashim_rawgetfield(L, 3, "id") != LUA_TNIL { id = m.runtime.string(at: -1) }
        }
        let pub = node.publisher(type: type, destination: destination, id: id)
        m.push(pub, .publisher)
        return 1
    }

    static func publish(_ L: OpaquePointer?, _ fname: String) -> Int32 {
        let m = state(L)
        guard let pub = m.object(at: 1, .publisher, as: Publisher.self) else {
            return m.argError(0, fname, "publisher", 1)
        }
        guard let event = m.value(at: 2), event.kind == .event else { return m.argError(1, fname, "event", 2) }
        guard pub.type.isSame(orAncestorOf: event.type) else {
            // (what was given is named: the event, not only its kind)
            return m.fail("bad argument #1 to '\(fname)' (\(pub.type.name) event expected, got \(event))")
        }
        do {
            let n = try pub.publish(event, in: m.world, location: m.location())
            if m.traceActions && m.isTopLevelAction, let t = m.world.lastTrace {
                Console.error(t.description + "\n")
            }
            lua_pushinteger(L, lua_Integer(n))
            return 1
        } catch {
            return DispatchBinding.raise(m, error)
        }
    }

    static let call: LuaSwiftFunction = { L in publish(L, "publish") }
    static let publishMethod: LuaSwiftFunction = { L in publish(L, "publish") }

    static let get: LuaSwiftFunction = { L in
        let m = state(L)
        guard let pub = m.object(at: 1, .publisher, as: Publisher.self), let key = m.runtime.string(at: 2) else {
            lua_pushnil(L)
            return 1
        }
        switch key {
        case "type": m.push(pub.type)
        case "destination": m.runtime.pushString(pub.destination.rawValue)
        case "id": if let id = pub.id { m.runtime.pushString(id) } else { lua_pushnil(L) }
        case "node": m.push(pub.node)
        default: lua_pushnil(L)
        }
        return 1
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        guard let pub = m.object(at: 1, .publisher, as: Publisher.self) else {
            m.pushPlaceholderName(at: 1, .publisher)
            return 1
        }
        m.runtime.pushString("publisher(\(pub.type.name)) on \(pub.node?.description ?? "?")")
        return 1
    }

    static let subscribe: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "subscribe", "node", 1) }
        guard let type = m.valueType(at: 2), type.kind == .event else {
            return m.argError(1, "subscribe", "event type", 2)
        }
        guard m.isCallable(at: 3) else { return m.argError(2, "subscribe", "function", 3) }
        var id: String?
        var once = false
        if let failure = ResponderBinding.options(m, "subscribe", 3, 4, &id, &once, on: node) { return failure }
        let slot = FunctionSlot(m, node: node, functionAt: 3)
        // [unowned(unsafe) m]: subscribers run only in this state's publications (proof at `ModuleState`)
        let subscriber = node.subscribe(type: type, id: id, once: once, location: m.location()) {
            [unowned(unsafe) m] value, ctx in
            m.invokeSubscriber(slot, value, ctx)
        }
        m.runtime.coverage?.track(subscriber, on: node, L)
        lua_settop(L, 1)
        return 1
    }
}

extension ModuleState {
    /// Runs a subscriber function `fn(event, ctx)`; what it returns is ignored.
    func invokeSubscriber(_ slot: FunctionSlot, _ value: Value, _ ctx: DispatchContext) -> ResponderResult {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        pushFunction(slot.node, slot.slot)
        push(value)
        if slot.wantsContext { pushFresh(ContextBox(ctx, meter: world.meter), .context) } else { lua_pushnil(L) }
        if runtime.callKeepingError(2, 0) != LUA_OK { return failed(ctx) }
        return world.pendingAbort != nil || pendingErrorSet ? .aborted : .handled
    }
}
