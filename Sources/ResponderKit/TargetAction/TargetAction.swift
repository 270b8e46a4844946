import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// Target–action (SPEC §2.9): a control's dispatch table (`addAction`, `addTarget`,
/// `removeAction`, `removeTarget`, `eventHandlers`, `sendActions`), `canPerform` for nil-targeted
/// actions, and the closure sugar `node.on.*`.
enum TargetAction: ModuleBinding {
    static let onMetaKey = "responder.kit.on"
    static let indexKey = "responder.kit.index"

    /// The control at argument 1 and its kit, or a raised status.
    static func control(_ m: ModuleState, _ fname: String) -> Result<(Node, ControlKind, NodeKit), KitFailure> {
        guard let node = m.node(at: 1) else { return .failure(KitFailure(status: m.argError(0, fname, "control", 1))) }
        guard let kind = ControlKind.of(node), let k = m.kit.kit(node), k.control != nil else {
            return .failure(
                KitFailure(
                    status: m.fail(
                        "bad self to '\(fname)' (a control expected: \(ControlKind.names); got \(node))"
                    )))
        }
        return .success((node, kind, k))
    }

    /// The control event at `index`: the default when `nil`/none, nil plus a raised status when bad.
    static func event(_ m: ModuleState, _ fname: String, _ n: Int, _ index: Int32, default def: ControlEvent?)
        -> Result<ControlEvent?, KitFailure>
    {
        if luashim_isnoneornil(m.L, index) { return .success(def) }
        guard lua_type(m.L, index) == LUA_TSTRING, let s = m.runtime.string(at: index) else {
            return .failure(KitFailure(status: m.argError(n, fname, "control event (string)", index)))
        }
        guard let e = ControlEvent(rawValue: s) else {
            return .failure(
                KitFailure(
                    status: m.fail(
                        "bad argument #\(n) to '\(fname)' (control event expected: one of \(ControlEvent.list); got \"\(s)\")"
                    )))
        }
        return .success(e)
    }

    // MARK: - registering

    /// `control:addAction(fn [, { event, id, title }])`: appends `fn(sender, action)` to the
    /// dispatch table; an action with the id already present (for whichever event) is replaced in
    /// place, taking the new event (SPEC §2.9: "an action with an id already present replaces it
    /// in place").
    /// Returns the action's id (generated, `action#n`, when none is given).
    static let addAction: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let kind: ControlKind
        let k: NodeKit
        switch control(m, "addAction") {
        case .failure(let f): return f.status
        case .success(let r): (node, kind, k) = r
        }
        guard m.isCallable(at: 2) else { return m.argError(1, "addAction", "function", 2) }
        var event = kind.primaryEvent
        var id: String?
        var title: String?
        if !luashim_isnoneornil(L, 3) {
            guard lua_type(L, 3) == LUA_TTABLE else { return m.argError(2, "addAction", "options table", 3) }
            if let status = m.checkOptionKeys(3, "addAction", allowed: ["event", "id", "title"]) { return status }
            m.runtime.pushString("event")
            lua_rawget(L, 3)
            switch TargetAction.event(m, "addAction", 2, lua_gettop(L), default: kind.primaryEvent) {
            case .failure(let f): return f.status
            case .success(let e): event = e ?? kind.primaryEvent
            }
            for (key, isId) in [("id", true), ("title", false)] {
                m.runtime.pushString(key)
                let t = lua_rawget(L, 3)
                if t == LUA_TNIL { continue }
                guard t == LUA_TSTRING || t == LUA_TNUMBER, let s = m.runtime.string(at: -1) else {
                    return m.fail("bad option '\(key)' to 'addAction' (string expected, got \(m.kindName(at: -1)))")
                }
                if isId { id = s } else { title = s }
            }
        }
        // a generated id is one no action of the control has (a script may have chosen `action#1`)
        var actionId = id ?? m.kit.generatedId("action")
        if let id, id.hasPrefix("action#") { k.hasChosenGeneratedStyleId = true }
        while id == nil && k.hasChosenGeneratedStyleId && k.handlers.contains(where: { $0.id == actionId }) {
            actionId = m.kit.generatedId("action")
        }
        let action = ControlHandler.Kind.action(KitSlot(m, node: node, valueAt: 2), .senderAction)
        if id != nil, let existing = k.handlers.first(where: { $0.id == actionId }) {
            // replaced in place: the entry stays the same one, so a send running now that has
            // not reached it yet runs the new action (a new entry would count as one added
            // during the send, the old as removed: an action that re-registered itself by id
            // never ran; found by an acceptance probe)
            existing.event = event
            existing.title = title
            existing.kind = action
            existing.direction = nil
            existing.rechargeText()
        } else {
            k.handlers.append(ControlHandler(event: event, id: actionId, title: title, kind: action))
        }
        m.runtime.pushString(actionId)
        return 1
    }

    /// `control:addTarget(target, "selector" [, event])`: target is a node (its `canPerform`
    /// action), a table with that method (called `target:selector(sender, action)`), or nil to
    /// search the responder chain upward from the control at each send.
    static let addTarget: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let kind: ControlKind
        let k: NodeKit
        switch control(m, "addTarget") {
        case .failure(let f): return f.status
        case .success(let r): (node, kind, k) = r
        }
        let t = lua_type(L, 2)
        guard t == LUA_TNIL || t == LUA_TNONE || t == LUA_TTABLE || m.node(at: 2) != nil else {
            return m.argError(1, "addTarget", "node, table or nil", 2)
        }
        guard lua_type(L, 3) == LUA_TSTRING, let selector = m.runtime.string(at: 3) else {
            return m.argError(2, "addTarget", "selector (string)", 3)
        }
        var event = kind.primaryEvent
        switch TargetAction.event(m, "addTarget", 3, 4, default: kind.primaryEvent) {
        case .failure(let f): return f.status
        case .success(let e): event = e ?? kind.primaryEvent
        }
        if t == LUA_TTABLE {
            switch m.kitIndex(2, selector) {
            case .failure: return LUASHIM_RAISE
            case .success(let type):
                luashim_pop(L, 1)
                guard type == LUA_TFUNCTION else {
                    return m.fail("bad argument #1 to 'addTarget' (target has no method '\(selector)')")
                }
            }
        }
        lua_settop(L, 4)
        // the same target, selector and event is registered once (as UIKit does): the handle
        // then cancels that registration
        for h in k.handlers where h.event == event {
            guard case .target(let ts, let sel) = h.kind, sel == selector else { continue }
            if let ts {
                ts.push(m)
                let same = lua_rawequal(L, -1, 2) != 0
                luashim_pop(L, 1)
                if same { return pushHandle(m, node, "addTarget", for: h) }
            } else if t == LUA_TNIL || t == LUA_TNONE {
                return pushHandle(m, node, "addTarget", for: h)
            }
        }
        let slot = (t == LUA_TNIL || t == LUA_TNONE) ? nil : TargetRef(m, node: node, valueAt: 2)
        let handler = ControlHandler(event: event, id: nil, title: nil, kind: .target(slot, selector))
        k.handlers.append(handler)
        return pushHandle(m, node, "addTarget", for: handler)
    }

    /// Pushes the handle of a target registration (SPEC §2.10: it stands for the control and
    /// its `cancel()` removes that entry of the dispatch table).
    private static func pushHandle(_ m: ModuleState, _ node: Node, _ kind: String, for h: ControlHandler) -> Int32 {
        if h.token == 0 { h.token = m.kit.nextToken() }
        m.push(node)
        lua_pushinteger(m.L, lua_Integer(h.token))
        m.pushKitNodeHandle(kind, node, remover: KitHandles.removeToken, upvalues: 2)
        return 1
    }

    /// `control:removeAction(id [, event])`: removes the actions with that id (for that event).
    static let removeAction: LuaSwiftFunction = { L in
        let m = state(L)
        let k: NodeKit
        switch control(m, "removeAction") {
        case .failure(let f): return f.status
        case .success(let r): k = r.2
        }
        guard lua_type(L, 2) == LUA_TSTRING || lua_type(L, 2) == LUA_TNUMBER, let id = m.runtime.string(at: 2) else {
            return m.argError(1, "removeAction", "action id (string)", 2)
        }
        var event: ControlEvent?
        switch TargetAction.event(m, "removeAction", 2, 3, default: nil) {
        case .failure(let f): return f.status
        case .success(let e): event = e
        }
        k.handlers.removeAll { h in
            guard case .action = h.kind, h.id == id else { return false }
            return event == nil || h.event == event
        }
        lua_settop(L, 1)
        return 1
    }

    /// `control:removeTarget(target, selector, event)`: each argument nil matches any.
    static let removeTarget: LuaSwiftFunction = { L in
        let m = state(L)
        let k: NodeKit
        switch control(m, "removeTarget") {
        case .failure(let f): return f.status
        case .success(let r): k = r.2
        }
        let anyTarget = luashim_isnoneornil(L, 2)
        // the kinds addTarget takes (another value can never have been added)
        guard anyTarget || lua_type(L, 2) == LUA_TTABLE || m.node(at: 2) != nil else {
            return m.argError(1, "removeTarget", "node, table or nil", 2)
        }
        var selector: String?
        if !luashim_isnoneornil(L, 3) {
            guard lua_type(L, 3) == LUA_TSTRING, let s = m.runtime.string(at: 3) else {
                return m.argError(2, "removeTarget", "selector (string) or nil", 3)
            }
            selector = s
        }
        var event: ControlEvent?
        switch TargetAction.event(m, "removeTarget", 3, 4, default: nil) {
        case .failure(let f): return f.status
        case .success(let e): event = e
        }
        lua_settop(L, 4)
        k.handlers.removeAll { h in
            guard case .target(let ts, let sel) = h.kind else { return false }
            if let selector, sel != selector { return false }
            if let event, h.event != event { return false }
            if anyTarget { return true }
            guard let ts else { return false }
            ts.push(m)
            defer { luashim_pop(L, 1) }
            return lua_rawequal(L, -1, 2) != 0
        }
        lua_settop(L, 1)
        return 1
    }

    /// `control:eventHandlers()`: the dispatch table in order, as
    /// `{ index, event, kind = "action" | "target", id, title, target, selector }`.
    static let eventHandlers: LuaSwiftFunction = { L in
        let m = state(L)
        let k: NodeKit
        switch control(m, "eventHandlers") {
        case .failure(let f): return f.status
        case .success(let r): k = r.2
        }
        m.dropCollectedTargets(k)
        lua_createtable(L, Int32(k.handlers.count), 0)
        for (i, h) in k.handlers.enumerated() {
            lua_createtable(L, 0, 6)
            lua_pushinteger(L, lua_Integer(i + 1))
            lua_setfield(L, -2, "index")
            m.runtime.pushString(h.event.rawValue)
            lua_setfield(L, -2, "event")
            if let id = h.id {
                m.runtime.pushString(id)
                lua_setfield(L, -2, "id")
            }
            if let title = h.title {
                m.runtime.pushString(title)
                lua_setfield(L, -2, "title")
            }
            switch h.kind {
            case .action:
                m.runtime.pushString("action")
                lua_setfield(L, -2, "kind")
            case .target(let ts, let selector):
                m.runtime.pushString("target")
                lua_setfield(L, -2, "kind")
                m.runtime.pushString(selector)
                lua_setfield(L, -2, "selector")
                if let ts {
                    ts.push(m)
                    lua_setfield(L, -2, "target")
                }
            }
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        return 1
    }

    /// `sendActions(control, event)`: runs every handler of that event, in order. Returns how
    /// many ran, or `false` when the control is disabled (nothing runs; UIKit's `isEnabled`).
    static let sendActions: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(1, "sendActions", "control", 1) }
        guard ControlKind.of(node) != nil, m.kit.kit(node)?.control != nil else {
            return m.fail(
                "bad argument #1 to 'sendActions' (a control expected: \(ControlKind.names); got \(node))"
            )
        }
        let event: ControlEvent
        switch TargetAction.event(m, "sendActions", 2, 2, default: nil) {
        case .failure(let f): return f.status
        case .success(let e):
            guard let e else { return m.argError(2, "sendActions", "control event (string)", 2) }
            event = e
        }
        lua_settop(L, 2)
        return m.kitInput(event.rawValue, node) {
            let n = try m.kitSend(node, event)
            lua_pushinteger(L, lua_Integer(n))
            return 1
        }
    }

    /// `node:canPerform("selector", fn(sender, action))` declares an action nil-targeted sends
    /// find on the responder chain (a second declaration replaces the first);
    /// `node:canPerform("selector")` tells whether the node declared it.
    static let canPerform: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "canPerform", "node", 1) }
        guard lua_type(L, 2) == LUA_TSTRING, let selector = m.runtime.string(at: 2) else {
            return m.argError(1, "canPerform", "selector (string)", 2)
        }
        if lua_type(L, 3) == LUA_TNONE {
            lua_pushboolean(L, m.kit.kit(node)?.performer(selector) != nil ? 1 : 0)
            return 1
        }
        guard m.isCallable(at: 3) else { return m.argError(2, "canPerform", "function", 3) }
        let k = m.kit.kitCreating(node)
        let slot = KitSlot(m, node: node, valueAt: 3)
        let token = m.kit.nextToken()
        if let i = k.performers.firstIndex(where: { $0.selector == selector }) {
            k.performers[i].fn = slot
            k.performers[i].token = token
        } else {
            k.performers.append((selector, slot, token))
            k.chargeSelector(selector)
        }
        // the handle's cancel() removes this declaration (not one that replaced it since)
        m.push(node)
        lua_pushinteger(L, lua_Integer(token))
        m.pushKitNodeHandle("canPerform", node, remover: KitHandles.removeToken, upvalues: 2)
        return 1
    }
}
