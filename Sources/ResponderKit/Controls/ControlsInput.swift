import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// Simulated input (SPEC §2.9): `typeText`, `commit`, `focus`, `blur`, `slide`, `increment`,
/// `decrement`, `toggle`, `selectSegment`, and what `tap` does on a control. Each returns `false`
/// when the control refused the input (disabled, or busy); otherwise its value (`slide`, a value
/// Stepper, `toggle`) or `true`.
enum ControlsInput: ModuleBinding {
    /// The control at argument 1 when it is one of `kinds`; otherwise a raised status.
    static func control(_ m: ModuleState, _ fname: String, _ kinds: [ControlKind]) -> Result<
        (Node, ControlState), KitFailure
    > {
        let expected = kinds.map(\.name).joined(separator: " or ")
        guard let node = m.node(at: 1) else { return .failure(KitFailure(status: m.argError(1, fname, expected, 1))) }
        guard let kind = ControlKind.of(node), kinds.contains(kind), let c = m.kit.kit(node)?.control else {
            return .failure(
                KitFailure(status: m.fail("bad argument #1 to '\(fname)' (\(expected) expected, got \(node))")))
        }
        return .success((node, c))
    }

    // MARK: - tap

    /// `tap` on a Button (touchUpInside, primaryActionTriggered), a Toggle (touchUpInside, then
    /// it toggles) or a text field (it begins editing).
    static func tapControl(_ m: ModuleState, _ node: Node) throws {
        guard let kind = ControlKind.of(node), let c = m.kit.kit(node)?.control else { return }
        switch kind {
        case .button, .asyncButton:
            try m.kitSend(node, .touchUpInside)
            try m.kitSend(node, .primaryActionTriggered)
        case .toggle:
            try m.kitSend(node, .touchUpInside)
            try flip(m, node, c)
        case .textField, .secureField:
            try beginEditing(m, node, c)
        default:
            break
        }
    }

    // MARK: - text fields

    static func beginEditing(_ m: ModuleState, _ node: Node, _ c: ControlState) throws {
        guard !c.isEditing else { return }
        if let other = m.kit.focused, other !== node, let oc = m.kit.kit(other)?.control, oc.isEditing {
            try endEditing(m, other, oc)
        }
        c.isEditing = true
        m.kit.focused = node
        try m.kitSend(node, .editingDidBegin)
    }

    static func endEditing(_ m: ModuleState, _ node: Node, _ c: ControlState) throws {
        guard c.isEditing else { return }
        c.isEditing = false
        if m.kit.focused === node { m.kit.focused = nil }
        try m.kitSend(node, .editingDidEnd)
    }

    /// `typeText(field, "abc")`: begins editing, then appends each character through the binding
    /// (each one an `editingChanged`).
    static let typeText: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "typeText", [.textField, .secureField]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        guard lua_type(L, 2) == LUA_TSTRING, let text = m.runtime.string(at: 2) else {
            return m.argError(2, "typeText", "string", 2)
        }
        lua_settop(L, 2)
        return m.kitInput("typeText", node) {
            try beginEditing(m, node, c)
            for ch in text {
                let top = lua_gettop(L)
                defer { lua_settop(L, top) }
                guard try m.pushControlValue(node, c, reporting: true) else { return 0 }
                let current = m.runtime.string(at: -1) ?? ""
                m.runtime.pushString(current + String(ch))
                guard try m.writeControlBinding(node, c, valueAt: -1) else { return 0 }
                try m.kitSend(node, .editingChanged)
            }
            return m.performed()
        }
    }

    /// `commit(field)`: onCommit (primaryActionTriggered), then editing ends as on Return.
    static let commit: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "commit", [.textField, .secureField]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        return m.kitInput("commit", node) {
            try m.kitSend(node, .primaryActionTriggered)
            try endEditing(m, node, c)
            return m.performed()
        }
    }

    /// `focus(field)`: begins editing (ending it on the field that had focus).
    static let focus: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "focus", [.textField, .secureField]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        return m.kitInput("focus", node) {
            try beginEditing(m, node, c)
            return m.performed()
        }
    }

    /// `blur(field)`: ends editing; nothing when not editing (returns `false` then, as an input
    /// that performs nothing does).
    static let blur: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "blur", [.textField, .secureField]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        return m.kitInput("blur", node) {
            guard c.isEditing else {
                lua_pushboolean(L, 0)
                return 1
            }
            try endEditing(m, node, c)
            return m.performed()
        }
    }

    // MARK: - slider, stepper

    /// `slide(slider, v)`: editing begins, the value (clamped to the range, on the step grid)
    /// goes through the binding (valueChanged when it changed), editing ends. Returns the value.
    static let slide: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "slide", [.slider]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        guard let target = KitNumber.at(L, 2) else { return m.argError(2, "slide", "number", 2) }
        // NaN has no place in a range (an infinite value is clamped like any other)
        if target.double.isNaN { return m.fail("bad argument #2 to 'slide' (number expected, got nan)") }
        lua_settop(L, 2)
        let value = stepped(target, c)
        return m.kitInput("slide", node) {
            c.isEditing = true
            try m.kitSend(node, .editingDidBegin)
            try setNumber(m, node, c, value)
            c.isEditing = false
            try m.kitSend(node, .editingDidEnd)
            value.push(L)
            return 1
        }
    }

    /// Clamps to the range, then snaps to the step grid from the range's lower bound.
    static func stepped(_ v: KitNumber, _ c: ControlState) -> KitNumber {
        let (lo, hi) = c.range ?? (.int(0), .int(1))
        let x = v.clamped(lo, hi)
        guard let step = c.step else { return x }
        if case .int(let l) = lo, case .int(let h) = hi, case .int(let s) = step {
            // on the grid in integers unless that would overflow (a range near the integer
            // limits): then in floating point below
            let q = ((x.double - Double(l)) / Double(s)).rounded()
            if q.isFinite, abs(q) < 9.0e18 {
                let (product, o1) = Int64(q).multipliedReportingOverflow(by: s)
                let (sum, o2) = l.addingReportingOverflow(product)
                if !o1 && !o2 {
                    var r = sum
                    while r > h { r -= s }
                    return .int(max(r, l))
                }
            }
        }
        let n = KitNumber.float((x.double - lo.double) / step.double).cleaned.double.rounded()
        var r = KitNumber.float(lo.double + n * step.double).cleaned.double
        // (a few steps back at most: a step below the precision of a huge value changes nothing)
        var back = 0
        while r > hi.double + 1e-12 && back < 4 {
            r -= step.double
            back += 1
        }
        r = Swift.min(Swift.max(r, lo.double), hi.double)
        if lo.isInt, step.isInt, r == r.rounded(), abs(r) < 9e15 { return .int(Int64(r)) }
        return .float(r)
    }

    /// Writes a number through the binding and sends valueChanged when it changed.
    static func setNumber(_ m: ModuleState, _ node: Node, _ c: ControlState, _ value: KitNumber, direction: Int? = nil)
        throws
    {
        let L = m.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard try m.pushControlValue(node, c, reporting: true) else { return }
        if let current = KitNumber.at(L, -1), current.double == value.double, current.isInt == value.isInt { return }
        value.push(L)
        guard try m.writeControlBinding(node, c, valueAt: -1) else { return }
        try m.kitSend(node, .valueChanged, direction: direction)
    }

    static func step(_ L: OpaquePointer?, _ fname: String, _ direction: Int) -> Int32 {
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, fname, [.stepper]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        lua_settop(L, 1)
        return m.kitInput(fname, node) {
            if c.binding == nil {
                // free form: onIncrement / onDecrement (false disables that direction)
                guard direction > 0 ? c.canIncrement : c.canDecrement else {
                    lua_pushboolean(L, 0)  // that direction has no action: nothing was performed
                    return 1
                }
                c.isEditing = true
                try m.kitSend(node, .editingDidBegin)
                try m.kitSend(node, .valueChanged, direction: direction)
                c.isEditing = false
                try m.kitSend(node, .editingDidEnd)
                return m.performed()
            }
            guard try m.pushControlValue(node, c, reporting: true) else { return 0 }
            let current = KitNumber.at(L, -1) ?? c.range?.0 ?? .int(0)
            luashim_pop(L, 1)
            let s = c.step ?? .int(1)
            let next = (direction > 0 ? current + s : current - s).cleaned.clamped(c.range?.0, c.range?.1)
            if next == current {
                current.push(L)
                return 1
            }
            c.isEditing = true
            try m.kitSend(node, .editingDidBegin)
            try setNumber(m, node, c, next, direction: direction)
            c.isEditing = false
            try m.kitSend(node, .editingDidEnd)
            next.push(L)
            return 1
        }
    }

    /// `increment(stepper)`.
    static let increment: LuaSwiftFunction = { L in step(L, "increment", 1) }
    /// `decrement(stepper)`.
    static let decrement: LuaSwiftFunction = { L in step(L, "decrement", -1) }

    // MARK: - toggle, segments

    static func flip(_ m: ModuleState, _ node: Node, _ c: ControlState) throws {
        let L = m.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard try m.pushControlValue(node, c, reporting: true) else { return }
        lua_pushboolean(L, lua_toboolean(L, -1) != 0 ? 0 : 1)
        guard try m.writeControlBinding(node, c, valueAt: -1) else { return }
        try m.kitSend(node, .valueChanged)
    }

    /// `toggle(t)`: flips `isOn` through the binding (valueChanged). Returns true (the new value
    /// is `t.isOn`): returning the value made turning a toggle off (`false`) read as the refusal
    /// of a disabled one (found by an acceptance probe).
    static let toggle: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "toggle", [.toggle]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        lua_settop(L, 1)
        return m.kitInput("toggle", node) {
            try flip(m, node, c)
            return m.performed()
        }
    }

    /// `selectSegment(control, i)`: selects segment i (1-based); when it was not selected, the
    /// segment's action runs with `(sender, action)` (`action`: title, index, event, sender and
    /// the segment's id when it has one), then valueChanged.
    static let selectSegment: LuaSwiftFunction = { L in
        let m = state(L)
        let node: Node
        let c: ControlState
        switch control(m, "selectSegment", [.segmentedControl]) {
        case .failure(let f): return f.status
        case .success(let r): (node, c) = r
        }
        var ok: Int32 = 0
        let i = luashim_tointeger(L, 2, &ok)
        guard ok != 0, i >= 1, i <= c.segments.count else {
            if lua_type(L, 2) == LUA_TNUMBER {
                return m.fail(
                    "bad argument #2 to 'selectSegment' (segment index (1..\(c.segments.count)) expected, got \(m.runtime.describe(2)))"
                )
            }
            return m.argError(2, "selectSegment", "segment index (1..\(c.segments.count))", 2)
        }
        let index = Int(i)
        lua_settop(L, 2)
        return m.kitInput("selectSegment", node) {
            // already selected: nothing runs (UIKit sends no valueChanged), but the input was taken
            guard c.selectedSegment != index else { return m.performed() }
            c.selectedSegment = index
            let segment = c.segments[index - 1]
            if let action = segment.action {
                try SegmentedControlMethods.run(action, of: segment, at: index, in: node, m)
            }
            try m.kitSend(node, .valueChanged)
            return m.performed()
        }
    }
}

/// A raised status carried through `Result`.
struct KitFailure: Error {
    let status: Int32
}

extension ModuleState {
    /// Pushes the control's value: the text of a field (`""` for nil), the number of a Slider or
    /// Stepper, the boolean of a Toggle, the selected segment. A failing binding is reported
    /// from the node (`reporting`) or just fails; false means nothing was pushed.
    func pushControlValue(_ node: Node, _ c: ControlState, reporting: Bool) throws -> Bool {
        if c.kind == .segmentedControl {
            if let i = c.selectedSegment { lua_pushinteger(L, lua_Integer(i)) } else { lua_pushnil(L) }
            return true
        }
        guard let slot = c.binding else {
            lua_pushnil(L)
            return true
        }
        slot.push(self)
        guard let box = object(at: -1, .binding, as: BindingBox.self) else {
            luashim_pop(L, 1)
            lua_pushnil(L)
            return true
        }
        let ok = readBinding(box, at: -1)
        luashim_remove(L, -2)
        if !ok {
            if reporting { try reportFailedCall(from: node) } else { luashim_pop(L, 1) }
            return false
        }
        switch c.kind {
        case .textField, .secureField:
            if lua_type(L, -1) == LUA_TNIL {
                luashim_pop(L, 1)
                runtime.pushString("")
            } else if lua_type(L, -1) == LUA_TNUMBER {
                let s = runtime.string(at: -1) ?? ""
                luashim_pop(L, 1)
                runtime.pushString(s)
            }
        case .toggle:
            let b = lua_toboolean(L, -1) != 0
            luashim_pop(L, 1)
            lua_pushboolean(L, b ? 1 : 0)
        default:
            break
        }
        return true
    }

    /// Writes the value at `index` through the control's binding; false when it failed (reported).
    func writeControlBinding(_ node: Node, _ c: ControlState, valueAt index: Int32) throws -> Bool {
        guard let slot = c.binding else { return false }
        let vi = lua_absindex(L, index)
        slot.push(self)
        defer { luashim_pop(L, 1) }
        guard let box = object(at: -1, .binding, as: BindingBox.self) else { return false }
        return try writeBinding(box, at: -1, valueAt: vi, from: node)
    }
}
