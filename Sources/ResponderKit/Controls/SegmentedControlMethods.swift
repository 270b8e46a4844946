import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// SPEC §2.10's segmented-control methods (UIKit's `UISegmentedControl`): `insertSegment`,
/// `setAction`, `segmentIndex`, `actionForSegment`.
enum SegmentedControlMethods {
    static let methods: [(String, LuaSwiftFunction)] = [
        ("insertSegment", insertSegment), ("setAction", setAction),
        ("segmentIndex", segmentIndex), ("actionForSegment", actionForSegment),
    ]

    /// Runs segment `index`'s action with `(sender, action)` (`action`: title, index, event,
    /// sender and the segment's id when it has one), as a step of the input's trace: handled,
    /// or threw when it raised (its error is reported from the control).
    static func run(
        _ action: KitSlot, of segment: (title: String, action: KitSlot?, id: String?), at index: Int, in node: Node,
        _ m: ModuleState
    ) throws {
        let L = m.L
        action.push(m)
        m.push(node)
        lua_createtable(L, 0, 5)
        m.runtime.pushString(segment.title)
        lua_setfield(L, -2, "title")
        lua_pushinteger(L, lua_Integer(index))
        lua_setfield(L, -2, "index")
        m.runtime.pushString(ControlEvent.valueChanged.rawValue)
        lua_setfield(L, -2, "event")
        m.push(node)
        lua_setfield(L, -2, "sender")
        if let id = segment.id {
            m.runtime.pushString(id)
            lua_setfield(L, -2, "id")
        }
        var ran = false
        let before = m.world.lastTrace
        defer {
            let value = Trace.actionValue(ControlEvent.valueChanged.rawValue)
            let step = TraceStep(
                node: node, index: index, responder: "segment(\(segment.title))", filter: nil, value: value,
                decision: ran ? .handled : .threw)
            let reported = ran ? [] : m.world.stepsOfErrorReported(since: before)
            m.world.recordAction(Trace(action: value, origin: node, steps: [step] + reported))
        }
        ran = try m.kitCall(2, 0, from: node)
    }

    /// The segmented control at argument 1 (its node and state), or a raised status.
    static func control(_ m: ModuleState, _ fname: String) -> Result<(Node, ControlState), KitFailure> {
        guard let node = m.node(at: 1), ControlKind.of(node) == .segmentedControl,
            let c = m.kit.kit(node)?.control
        else {
            return .failure(KitFailure(status: m.argError(0, fname, "SegmentedControl", 1)))
        }
        return .success((node, c))
    }

    /// The segment index at `index` within 1...`upper`, or a raised status.
    static func index(_ m: ModuleState, _ fname: String, _ n: Int, at index: Int32, upper: Int) -> Result<
        Int, KitFailure
    > {
        var ok: Int32 = 0
        let i = luashim_tointeger(m.L, index, &ok)
        guard lua_type(m.L, index) == LUA_TNUMBER, ok != 0, i >= 1, i <= upper else {
            return .failure(KitFailure(status: m.argError(n, fname, "segment index (1..\(upper))", index)))
        }
        return .success(Int(i))
    }

    /// `seg:insertSegment({ title, action, id }, at)`: inserts a segment at `at` (default: at
    /// the end); the selection follows its segment. Returns the control.
    static let insertSegment: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let node: Node
        let c: ControlState
        switch control(m, "insertSegment") {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        guard lua_type(L, 2) == LUA_TTABLE else {
            return m.argError(1, "insertSegment", "segment table { title = string, action = function, id = string }", 2)
        }
        var at = c.segments.count + 1
        if !luashim_isnoneornil(L, 3) {
            // an index past either end is pinned to it, as UIKit's insertSegment(withTitle:at:)
            // clamps it (found by an acceptance probe)
            var ok: Int32 = 0
            let i = luashim_tointeger(L, 3, &ok)
            guard ok != 0 else { return m.argError(2, "insertSegment", "segment index (integer)", 3) }
            at = Int(min(max(i, 1), lua_Integer(c.segments.count + 1)))
        }
        let tt = kitRawField(L, 2, "title")
        let title = tt == LUA_TSTRING ? m.runtime.string(at: -1) : nil
        kitRawField(L, 2, "action")
        let ai = lua_gettop(L)
        let idType = kitRawField(L, 2, "id")
        let id = idType == LUA_TSTRING ? m.runtime.string(at: -1) : nil
        guard let title else { return m.fail("bad argument #1 to 'insertSegment' (field 'title' must be a string)") }
        guard lua_type(L, ai) == LUA_TNIL || m.isCallable(at: ai) else {
            return m.fail("bad argument #1 to 'insertSegment' (field 'action' must be a function)")
        }
        guard idType == LUA_TNIL || id != nil else {
            return m.fail("bad argument #1 to 'insertSegment' (field 'id' must be a string)")
        }
        let action = m.isCallable(at: ai) ? KitSlot(m, node: node, valueAt: ai) : nil
        c.insertSegment((title, action, id), at: at - 1)
        if let selected = c.selectedSegment, selected >= at { c.selectedSegment = selected + 1 }
        lua_settop(L, 1)
        return 1
    }

    /// `seg:setAction(i, fn | nil)`: replaces segment i's action. Returns the control.
    static let setAction: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let node: Node
        let c: ControlState
        switch control(m, "setAction") {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        let i: Int
        switch index(m, "setAction", 1, at: 2, upper: c.segments.count) {
        case .failure(let f): return f.status
        case .success(let v): i = v
        }
        guard luashim_isnoneornil(L, 3) || m.isCallable(at: 3) else {
            return m.argError(2, "setAction", "function or nil", 3)
        }
        c.setSegmentAction(m.isCallable(at: 3) ? KitSlot(m, node: node, valueAt: 3) : nil, at: i - 1)
        lua_settop(L, 1)
        return 1
    }

    /// `seg:segmentIndex(id)`: the index of the segment with that id, or nil.
    static let segmentIndex: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let c: ControlState
        switch control(m, "segmentIndex") {
        case .failure(let f): return f.status
        case .success(let r): c = r.1
        }
        guard lua_type(L, 2) == LUA_TSTRING, let id = m.runtime.string(at: 2) else {
            return m.argError(1, "segmentIndex", "segment id (string)", 2)
        }
        if let i = c.segments.firstIndex(where: { $0.id == id }) {
            lua_pushinteger(L, lua_Integer(i + 1))
        } else {
            lua_pushnil(L)
        }
        return 1
    }

    /// `seg:actionForSegment(i)`: segment i's action, or nil.
    static let actionForSegment: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let c: ControlState
        switch control(m, "actionForSegment") {
        case .failure(let f): return f.status
        case .success(let r): c = r.1
        }
        switch index(m, "actionForSegment", 1, at: 2, upper: c.segments.count) {
        case .failure(let f): return f.status
        case .success(let i):
            if let action = c.segments[i - 1].action { action.push(m) } else { lua_pushnil(L) }
        }
        return 1
    }
}
