import CLua
import CLuaShim
import ResponderEngine

/// `node:trigger`, `node:report`, `mount`, `tap` and what they return (SPEC §2.3, §2.8).
package enum DispatchBinding: ModuleBinding {
    /// Turns a Swift error from the engine into a raised Lua error (LUASHIM_RAISE).
    package static func raise(_ m: ModuleState, _ error: Error) -> Int32 {
        if m.runtime.control.pointee.abortPending != 0 && m.world.actionDepth == 0 {
            // a strict violation unwound through Lua code: raise it once more, catchably (an
            // error a hook kept on the way is that same abort: dropped, or the next call would
            // raise it again)
            if m.pendingErrorSet {
                m.pushPendingError()
                luashim_pop(m.L, 1)
            }
            lua_getfield(m.L, luashim_registryindex(), "responder.abortMessage")
            luashim_set_abort(m.L, 0)
            return LUASHIM_RAISE
        }
        if m.pendingErrorSet {
            m.pushPendingError()
            return LUASHIM_RAISE
        }
        switch error {
        case let strict as StrictViolation:
            return raiseStrict(m, strict.violation)
        case EngineError.aborted:
            if let v = m.world.pendingAbort { return raiseStrict(m, v) }
            return failAtCaller(m, "dispatch aborted")
        case let e as EngineError:
            return failAtCaller(m, e.description)
        case let e as LuaCallError:
            return e.raise(m)
        default:
            return m.fail("\(error)")
        }
    }

    /// Refuses an action nested so deeply that Lua's C-call limit is near (``ModuleState/isNestedTooDeeply``):
    /// "dispatch nested too deeply", saying why when fewer than 100 dispatches are running (a
    /// `pcall` or coroutine around each nested call uses up Lua's limit first).
    package static func refuseNesting(_ m: ModuleState) -> Int32 {
        if m.pendingErrorSet || m.runtime.control.pointee.abortPending != 0 {
            return raise(m, EngineError.nestedTooDeeply)
        }
        return failAtCaller(
            m,
            EngineError.nestedTooDeeply.description
                + " (Lua allows about 200 nested C calls: each nested action uses two, and each pcall, coroutine "
                + "or callback around one uses more)")
    }

    /// Raises `message` at the caller's line, or at the innermost script line when the caller is
    /// the kit's own Lua (a `props` observer or preference handler nested too deeply names the
    /// script's line, not the kit's file).
    static func failAtCaller(_ m: ModuleState, _ message: String) -> Int32 {
        m.runtime.levelIsHostChunk() ? m.failAtScriptLine(message) : m.fail(message)
    }

    /// Raises a strict violation. Inside an outer action (a responder's nested call) the count
    /// hook keeps raising it at every instruction until the outermost call ends, so no `pcall`
    /// inside a responder can swallow it; the outermost call raises it once, catchably. Inside a
    /// `__gc` finalizer (whose errors Lua only warns about) the hook raises it likewise once
    /// the finalizer has returned.
    static func raiseStrict(_ m: ModuleState, _ v: Violation) -> Int32 {
        let place =
            v.location.map { "\($0.file):\($0.line): " }
            ?? (m.runtime.levelIsHostChunk() ? "" : m.runtime.whereString())
        let message = "\(place)\(v.message)"
        if m.world.actionDepth > 0 {
            m.runtime.pushString(message)
            luashim_set_abort(m.L, 1)
        } else if m.runtime.isInFinalizer() {
            // raised once, by the hook, when the finalizer has returned
            m.runtime.pushString(message)
            luashim_set_abort(m.L, 2)
        } else {
            luashim_set_abort(m.L, 0)
        }
        return m.runtime.raise(message)
    }

    /// Pushes the outcome (and prints the trace with `--trace` for top-level actions).
    static func finish(_ m: ModuleState, _ outcome: consuming Outcome?) -> Int32 {
        switch consume outcome {
        case .none:
            lua_pushnil(m.L)
        case .some(let outcome):
            if m.traceActions && m.isTopLevelAction {
                Console.error(outcome.trace.description + "\n")
            }
            // An outcome in Lua is its trace under the outcome's metatable: the trace holds the
            // outcome's fields (`Trace.ending`), so no object is made for the outcome itself.
            m.pushFresh(outcome.trace, .outcome)
        }
        return 1
    }

    static func dispatch(_ L: OpaquePointer?, _ fname: String, _ kind: ValueKind) -> Int32 {
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, fname, "node", 1) }
        guard let value = m.value(at: 2), value.kind == kind else {
            if let type = m.valueType(at: 2) {
                // a type where a value belongs: say how to make one
                return m.fail(
                    "bad argument #1 to '\(fname)' (\(kind == .event ? "event" : "error") expected, "
                        + "got \(type.kind == .event ? "event" : "error") type \(type.name); make a value with \(type.name) {})"
                )
            }
            return m.argError(1, fname, kind == .event ? "event" : "error", 2)
        }
        if m.isNestedTooDeeply { return refuseNesting(m) }
        let location: SourceLocation? = nil  // computed only if a violation needs it (World.locationProvider)
        let before = m.traceActions ? m.world.lastTrace : nil
        do {
            let outcome =
                kind == .event
                ? try m.world.trigger(value, from: node, location: location)
                : try m.world.report(value, from: node, location: location)
            return finish(m, outcome)
        } catch {
            // --trace: a dispatch a strict violation aborted is printed too
            if m.traceActions && m.isTopLevelAction, let trace = m.world.lastTrace, trace !== before {
                Console.error(trace.description + "\n")
            }
            return raise(m, error)
        }
    }

    static let trigger: LuaSwiftFunction = { L in dispatch(L, "trigger", .event) }
    static let report: LuaSwiftFunction = { L in dispatch(L, "report", .error) }

    static let mount: LuaSwiftFunction = { L in
        let m = state(L)
        guard let root = m.node(at: 1) else { return m.argError(1, "mount", "node", 1) }
        do {
            try m.world.mount(root)
            // a limit met in a disappear handler of the tree taken down (kept by the hook)
            if m.pendingErrorSet { throw LuaCallError() }
        } catch {
            return raise(m, error)
        }
        // keep the mounted tree reachable for Lua's collector (the old one until the action ends)
        lua_getfield(L, luashim_registryindex(), "responder.mounted")
        m.anchorWhileActing(-1)
        luashim_pop(L, 1)
        m.push(root)
        lua_setfield(L, luashim_registryindex(), "responder.mounted")
        lua_settop(L, 1)
        return 1
    }

    static let tap: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(1, "tap", "node", 1) }
        if m.isNestedTooDeeply { return refuseNesting(m) }
        var count = 1
        if !luashim_isnoneornil(L, 2) {
            var ok: Int32 = 0
            let n = luashim_tointeger(L, 2, &ok)
            guard ok != 0, n >= 1 else { return m.argError(2, "tap", "tap count (positive integer)", 2) }
            count = Int(n)
        }
        do {
            let before = m.world.lastTrace
            defer { m.printNewActionTrace(since: before) }
            if let ext = m.moduleExtension, try ext.refusesInput(m, "tap", node) {
                lua_pushboolean(L, 0)
                return 1
            }
            // the outcome of the last event a tap action triggered; true when the actions only
            // performed functions (false above: the node refused the input)
            guard let outcome = try m.world.tap(node, count: count, location: m.location()) else {
                lua_pushboolean(L, 1)
                return 1
            }
            return finish(m, outcome)
        } catch {
            return raise(m, error)
        }
    }

    // MARK: - outcome

    static let outcomeIndex: LuaSwiftFunction = { L in
        let m = state(L)
        guard let trace = outcome(m, at: 1), let key = m.runtime.string(at: 2) else {
            if let kind = m.finalizedKind(at: 1) { return m.finalizedError(kind) }
            lua_pushnil(L)
            return 1
        }
        pushField(m, trace, key)
        return 1
    }

    /// The trace of the outcome at `index` (an outcome is its trace, which holds how it ended),
    /// or nil.
    static func outcome(_ m: ModuleState, at index: Int32) -> Trace? {
        guard let trace = m.object(at: index, .outcome, as: Trace.self), trace.ending != nil else { return nil }
        return trace
    }

    /// Pushes the field `key` of the outcome whose trace is `trace` (nil for another key).
    /// Pushes only: nothing here can raise.
    static func pushField(_ m: ModuleState, _ trace: Trace, _ key: String) {
        let L = m.L
        guard let o = trace.ending else { return lua_pushnil(L) }
        switch key {
        case "handled": lua_pushboolean(L, o.handled ? 1 : 0)
        case "by": m.push(o.by)
        case "responder": if let r = o.responder { m.runtime.pushString(r) } else { lua_pushnil(L) }
        case "value": m.push(o.value)
        case "trace": m.push(trace, .trace)
        default: lua_pushnil(L)
        }
    }

    /// The fields of an outcome, in the order `pairs(outcome)` gives them.
    static let outcomeKeys = ["handled", "by", "responder", "value", "trace"]

    /// `pairs(outcome)`: its fields (those that are not nil), as for a table.
    static let outcomePairs: LuaSwiftFunction = { L in
        luashim_push_swift_function(L, outcomeNext)
        lua_pushvalue(L, 1)
        lua_pushnil(L)
        return 3
    }

    /// The iterator of `pairs(outcome)`: the next field after the key given, and its value.
    static let outcomeNext: LuaSwiftFunction = { L in
        let m = state(L)
        guard let o = outcome(m, at: 1) else { return m.fail("bad argument #1 to 'next' (outcome expected)") }
        var i = 0
        if !luashim_isnoneornil(L, 2) {
            // a key that is no field of an outcome is refused, as `next` refuses one (starting
            // over made a loop written by hand never end)
            guard lua_type(L, 2) == LUA_TSTRING, let after = m.runtime.string(at: 2),
                let index = outcomeKeys.firstIndex(of: after)
            else { return m.fail("invalid key to 'next'") }
            i = index + 1
        }
        while i < outcomeKeys.count {
            m.runtime.pushString(outcomeKeys[i])
            pushField(m, o, outcomeKeys[i])
            if lua_type(L, -1) != LUA_TNIL { return 2 }
            luashim_pop(L, 2)
            i += 1
        }
        return 0
    }

    static let outcomeToString: LuaSwiftFunction = { L in
        let m = state(L)
        guard let o = outcome(m, at: 1)?.ending else {
            m.pushPlaceholderName(at: 1, .outcome)
            return 1
        }
        if o.handled {
            m.runtime.pushString("handled \(o.value) by \(o.by?.description ?? "?") (\(o.responder ?? "?"))")
        } else {
            m.runtime.pushString("unhandled \(o.value)")
        }
        return 1
    }

    // MARK: - context

    static let contextIndex: LuaSwiftFunction = { L in
        let m = state(L)
        guard let box = m.object(at: 1, .context, as: ContextBox.self), let key = m.runtime.string(at: 2) else {
            if let kind = m.finalizedKind(at: 1) { return m.finalizedError(kind) }
            lua_pushnil(L)
            return 1
        }
        let c = box
        switch key {
        case "node": m.push(c.node)
        case "origin": m.push(c.origin)
        case "path":
            m.push(c.path)
        default: lua_pushnil(L)
        }
        return 1
    }

    static let contextToString: LuaSwiftFunction = { L in
        let m = state(L)
        guard let c = m.object(at: 1, .context, as: ContextBox.self) else {
            m.pushPlaceholderName(at: 1, .context)
            return 1
        }
        m.runtime.pushString("ctx(node: \(c.node), origin: \(c.origin))")
        return 1
    }
}

/// A Lua function called by an engine closure (tap action, subscriber…) raised: the error value
/// is kept in the registry and raised again from the outermost Swift function.
package struct LuaCallError: Error {
    package init() {}
    func raise(_ m: ModuleState) -> Int32 {
        m.pushPendingError()
        return LUASHIM_RAISE
    }
}

extension ModuleState {
    /// Whether an action called from Lua now (a dispatch, a tap, a kit input) must be refused
    /// with "dispatch nested too deeply". Each nested action uses a level of Lua's 200 nested C
    /// calls, and one more for every `pcall` a responder wraps its call in: deep in, the nesting
    /// is refused in the engine's words before Lua's "C stack overflow" would stop a responder
    /// from running. Ten levels are kept for the responders (the handler of the error raised
    /// here, and up to nine pcalls around a next call), so the refusal comes a few levels before
    /// Lua's own limit. (Without it, a Button whose action taps the button recursed until the C
    /// stack overflowed, and the root's `handleError` could not run for that error: found by
    /// an acceptance probe.)
    package var isNestedTooDeeply: Bool { luashim_c_calls(L) > 190 }
}
