import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// Running a control's dispatch table and the nil-target walk (SPEC §2.9 target–action).
extension ModuleState {
    /// `t[k]` for the value at `index` in protected mode: on success pushes the value and returns
    /// its type; on failure leaves the error on top.
    func kitIndex(_ index: Int32, _ key: String) -> Result<Int32, KitFailure> {
        let i = lua_absindex(L, index)
        lua_getfield(L, luashim_registryindex(), TargetAction.indexKey)
        lua_pushvalue(L, i)
        runtime.pushString(key)
        if runtime.callKeepingError(2, 1) != LUA_OK { return .failure(KitFailure(status: LUASHIM_RAISE)) }
        return .success(lua_type(L, -1))
    }

    /// Pushes the `action` argument handlers get: `{ id, title, event, sender, selector, target }`.
    func pushActionTable(_ h: ControlHandler, sender: Node, selector: String? = nil, targetAt target: Int32? = nil) {
        lua_createtable(L, 0, 6)
        if let id = h.id {
            runtime.pushString(id)
            lua_setfield(L, -2, "id")
        }
        if let title = h.title {
            runtime.pushString(title)
            lua_setfield(L, -2, "title")
        }
        runtime.pushString(h.event.rawValue)
        lua_setfield(L, -2, "event")
        push(sender)
        lua_setfield(L, -2, "sender")
        if let selector {
            runtime.pushString(selector)
            lua_setfield(L, -2, "selector")
        }
        if let target {
            lua_pushvalue(L, target)
            lua_setfield(L, -2, "target")
        }
    }

    /// Sends `event` from the control: every handler registered for it runs, in order (the list
    /// is snapshotted; a handler removed before its turn does not run). Returns how many ran.
    /// A send that ran at least one handler outside any dispatch records an action trace
    /// (SPEC §2.8): one step per handler that ran and, for nil-targeted actions, the walk.
    @discardableResult
    func kitSend(_ node: Node, _ event: ControlEvent, direction: Int? = nil) throws -> Int {
        world.noteDriven(node)
        guard let k = kit.kit(node) else { return 0 }
        dropCollectedTargets(k)
        let entries = k.handlers.filter { $0.event == event && ($0.direction == nil || $0.direction == direction) }
        var count = 0
        let value = Trace.actionValue(event.rawValue)
        var steps: [TraceStep] = []
        defer {
            if !steps.isEmpty { world.recordAction(Trace(action: value, origin: node, steps: steps)) }
        }
        for h in entries {
            guard k.handlers.contains(where: { $0 === h }), h.event == event else { continue }
            // (a table target collected while an earlier handler ran: gone, as above)
            if case .target(let ts?, _) = h.kind, ts.isGone(self) { continue }
            let top = lua_gettop(L)
            defer { lua_settop(L, top) }
            count += 1
            let index = (k.handlers.firstIndex { $0 === h } ?? -1) + 1
            try run(h, from: node, index: index, value: value, steps: &steps)
        }
        return count
    }

    /// Removes the entries whose table target was collected: held weakly, as UIKit holds
    /// targets, such an entry is gone (it neither runs nor shows in a trace or `eventHandlers`;
    /// a send traced it as `handled`: found by an acceptance probe).
    func dropCollectedTargets(_ k: NodeKit) {
        k.handlers.removeAll { h in
            if case .target(let ts?, _) = h.kind { return ts.isGone(self) }
            return false
        }
    }

    /// How an action trace names a dispatch-table entry: `action(id)`, `addTarget(selector)`,
    /// `addTarget(nil, selector)`.
    func traceLabel(_ h: ControlHandler) -> String {
        switch h.kind {
        case .action: h.id.map { "action(\($0))" } ?? "action"
        case .target(let ts, let selector): ts == nil ? "addTarget(nil, \(selector))" : "addTarget(\(selector))"
        }
    }

    private func run(
        _ h: ControlHandler, from node: Node, index: Int, value: Value,
        steps: inout [TraceStep]
    ) throws {
        func step(_ n: Node, _ i: Int, _ label: String, _ decision: Decision) {
            steps.append(
                TraceStep(
                    node: n, index: i, responder: label, filter: nil, value: value,
                    decision: decision))
        }
        // a step that runs a handler: `handled`, or `threw` when the handler raised (reported) or
        // a limit or a strict abort came while it ran; the walk of the error it raised, reported
        // from the control, follows that step (as a responder's error follows its `threw`)
        func performing(_ n: Node, _ i: Int, _ label: String, _ body: () throws -> Bool) throws {
            let at = steps.count
            let before = world.lastTrace
            step(n, i, label, .handled)
            var ok = false
            defer {
                if !ok {
                    steps[at].decision = .threw
                    steps += world.stepsOfErrorReported(since: before)
                }
            }
            ok = try body()
        }
        let label = traceLabel(h)
        if case .target(nil, let selector) = h.kind {
            // the nil-target walk: each node asked, who performed
            step(node, index, label, .passed)
            let walk = node.pathToRoot
            // the walk asks every node up to the root (and its trace keeps a step for each)
            world.work.charge(walk.count)
            for n in walk {
                guard let fn = kit.kit(n)?.performer(selector) else {
                    step(n, 0, "canPerform(\(selector))", .skipped)
                    continue
                }
                try performing(n, 0, "canPerform(\(selector))") {
                    fn.push(self)
                    push(node)
                    push(n)
                    let ti = lua_gettop(L)
                    pushActionTable(h, sender: node, selector: selector, targetAt: ti)
                    luashim_remove(L, ti)
                    return try kitCall(2, 0, from: node)
                }
                return
            }
            let root = node.pathToRoot.last ?? node
            step(root, 0, "", .unhandled)
            if world.violationsDisabled(at: node) { return }
            let path = node.pathToRoot.map(\.description).joined(separator: " > ")
            let message = "unhandled action \(selector) (\(h.event.rawValue)) from \(node) (path: \(path))"
            try world.reportViolation(
                Violation(
                    kind: .unhandledAction, message: message, node: node,
                    location: location()))
            return
        }
        try performing(node, index, label) { try run(h, from: node) }
    }

    /// Runs one handler; returns false when it raised (or its target could not perform the
    /// action): the error was reported, and the trace says `threw`.
    @discardableResult
    private func run(_ h: ControlHandler, from node: Node) throws -> Bool {
        switch h.kind {
        case .action(let slot, .task):
            // the kit's starter (async.lua) starts `fn` as a task of the button unless one runs
            lua_getfield(L, luashim_registryindex(), ControlsBinding.asyncStarterKey)
            guard isCallable(at: -1) else { return true }
            push(node)
            slot.push(self)
            return try kitCall(2, 0, from: node)
        case .action(let slot, let call):
            slot.push(self)
            guard isCallable(at: -1) else { return true }
            var nargs: Int32 = 0
            switch call {
            case .task:
                break  // above
            case .senderAction:
                push(node)
                pushActionTable(h, sender: node)
                nargs = 2
            case .none:
                break
            case .bool(let b):
                lua_pushboolean(L, b ? 1 : 0)
                nargs = 1
            case .value, .text:
                guard let c = kit.kit(node)?.control else { return true }
                guard try pushControlValue(node, c, reporting: true) else { return false }
                nargs = 1
            }
            return try kitCall(nargs, 0, from: node)
        case .target(let targetSlot, let selector):
            if let targetSlot {
                targetSlot.push(self)
                let ti = lua_gettop(L)
                if let target = self.node(at: ti) {
                    guard let fn = kit.kit(target)?.performer(selector) else {
                        try reportNoMethod(
                            node,
                            "target \(target) cannot perform '\(selector)' (declare it with \(target.name):canPerform(\"\(selector)\", fn))"
                        )
                        return false
                    }
                    fn.push(self)
                    push(node)
                    pushActionTable(h, sender: node, selector: selector, targetAt: ti)
                    return try kitCall(2, 0, from: node)
                } else if lua_type(L, ti) == LUA_TNIL {
                    return true
                } else {
                    switch kitIndex(ti, selector) {
                    case .failure:
                        try reportFailedCall(from: node)
                        return false
                    case .success(let type):
                        guard type == LUA_TFUNCTION else {
                            try reportNoMethod(node, "target has no method '\(selector)'")
                            return false
                        }
                    }
                    lua_pushvalue(L, ti)
                    push(node)
                    pushActionTable(h, sender: node, selector: selector, targetAt: ti)
                    return try kitCall(3, 0, from: node)
                }
            }
            return true
        // a nil target is walked (and traced) by run(_:from:index:value:steps:), which never
        // hands it on here
        }
    }

    /// Reports a `LuaError` from the control (a target that cannot perform the action).
    private func reportNoMethod(_ node: Node, _ message: String) throws {
        let error = ValueBinding.luaError(
            self, message: "\(location().map { "\($0): " } ?? "")\(message)",
            traceback: nil, node: node)
        _ = try world.report(error, from: node, location: location())
    }
}
