import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// Building a control from its table: the keys each kind takes, their checks, the node, its
/// dispatch table and its tap action.
extension ControlsBinding {
    /// The keys each kind takes from its table (the rest are children, `id` and props).
    static func keys(_ kind: ControlKind) -> [String] {
        ["disabled"] + ownKeys(kind)
    }

    private static func ownKeys(_ kind: ControlKind) -> [String] {
        switch kind {
        case .button: ["action"]
        case .textField: ["text", "onEditingChanged", "onCommit"]
        case .secureField: ["text", "onCommit", "onEditingChanged"]
        case .slider: ["value", "range", "step", "onEditingChanged"]
        case .stepper: ["value", "range", "step", "onEditingChanged", "onIncrement", "onDecrement"]
        case .toggle: ["isOn"]
        case .segmentedControl: ["segments", "selected"]
        case .asyncButton: ["action", "disabledWhenLoading"]
        }
    }

    static func build(_ m: ModuleState, _ kind: ControlKind, title: String?, table t: Int32) -> Int32 {
        let L = m.L
        let owner = title.map { "\(kind.name) \"\($0)\" { … }" } ?? "\(kind.name) { … }"
        let keys = keys(kind)
        var fields: [String: Int32] = [:]
        for key in keys {
            m.runtime.pushString(key)
            if lua_rawget(L, t) == LUA_TNIL {
                luashim_pop(L, 1)
            } else {
                fields[key] = lua_gettop(L)
            }
        }
        func bad(_ key: String, _ expected: String) -> Int32 {
            m.fail(
                "bad field '\(key)' in \(owner) (\(expected) expected, got \(m.given(at: fields[key]!, expected: expected)))"
            )
        }
        func isFunction(_ key: String) -> Bool { fields[key].map { m.isCallable(at: $0) } ?? false }
        // other keys become props, but a near miss of the control's own keys is a typo
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            luashim_pop(L, 1)
            guard lua_type(L, -1) == LUA_TSTRING, let key = m.runtime.string(at: -1), key != "id",
                !keys.contains(key), let guess = Suggestions.nearest(to: key, in: keys)
            else { continue }
            return m.fail("bad field '\(key)' in \(owner) (did you mean '\(guess)'?)")
        }
        // validate
        for key in ["action", "onEditingChanged", "onCommit"] where fields[key] != nil && !isFunction(key) {
            return bad(key, "function")
        }
        var range: (KitNumber, KitNumber)?
        var step: KitNumber?
        switch kind {
        case .button, .asyncButton:
            if fields["action"] == nil {
                return m.fail("\(owner) needs an action: \(kind.name) \"Title\" { action = function() … end }")
            }
            if let i = fields["disabledWhenLoading"], lua_type(L, i) != LUA_TBOOLEAN {
                return bad("disabledWhenLoading", "boolean")
            }
        case .textField, .secureField, .slider, .toggle:
            let key = kind == .slider ? "value" : kind == .toggle ? "isOn" : "text"
            guard let i = fields[key] else {
                return m.fail("\(owner) needs '\(key)' (a Binding or State)")
            }
            guard m.isBindable(at: i) else { return bad(key, "Binding or State") }
            if kind == .secureField, fields["onEditingChanged"] != nil {
                return m.fail(
                    "bad field 'onEditingChanged' in \(owner) (a SecureField takes only 'text' and 'onCommit')")
            }
        case .stepper:
            if let i = fields["value"] {
                guard m.isBindable(at: i) else { return bad("value", "Binding or State") }
                if fields["onIncrement"] != nil || fields["onDecrement"] != nil {
                    return m.fail(
                        "\(owner) takes either 'value' (a Binding) or 'onIncrement' and 'onDecrement', not both")
                }
            } else {
                for key in ["onIncrement", "onDecrement"] {
                    guard let i = fields[key] else {
                        return m.fail(
                            "\(owner) needs 'value' (a Binding or State), or both 'onIncrement' and 'onDecrement' (function or false); '\(key)' is missing"
                        )
                    }
                    if !m.isCallable(at: i) && !(lua_type(L, i) == LUA_TBOOLEAN && lua_toboolean(L, i) == 0) {
                        return bad(key, "function or false")
                    }
                }
            }
        case .segmentedControl:
            guard let i = fields["segments"] else {
                return m.fail("\(owner) needs 'segments' ({ { title = \"One\", action = fn }, … })")
            }
            guard lua_type(L, i) == LUA_TTABLE, lua_rawlen(L, i) > 0 else {
                return bad("segments", "non-empty array of segments")
            }
            let n = Int(lua_rawlen(L, i))
            for s in 1...n {
                lua_rawgeti(L, i, lua_Integer(s))
                guard lua_type(L, -1) == LUA_TTABLE else {
                    return m.fail(
                        "bad segment #\(s) in \(owner) (table { title = string, action = function } expected, got \(m.kindName(at: -1)))"
                    )
                }
                let st = kitRawField(L, -1, "title")
                let sa = kitRawField(L, -2, "action")
                let callable = m.isCallable(at: -1)
                let si = kitRawField(L, -3, "id")
                luashim_pop(L, 4)
                guard st == LUA_TSTRING else {
                    return m.fail("bad segment #\(s) in \(owner) (field 'title' must be a string)")
                }
                guard sa == LUA_TNIL || callable else {
                    return m.fail("bad segment #\(s) in \(owner) (field 'action' must be a function)")
                }
                // (as insertSegment and segmentIndex take it)
                guard si == LUA_TNIL || si == LUA_TSTRING else {
                    return m.fail("bad segment #\(s) in \(owner) (field 'id' must be a string)")
                }
            }
            if let si = fields["selected"] {
                var ok: Int32 = 0
                let v = luashim_tointeger(L, si, &ok)
                guard ok != 0, v >= 1, v <= n else { return bad("selected", "segment index (1..\(n))") }
            }
        }
        if kind == .slider || kind == .stepper {
            if let i = fields["range"] {
                guard lua_type(L, i) == LUA_TTABLE else { return bad("range", "{lo, hi}") }
                lua_rawgeti(L, i, 1)
                lua_rawgeti(L, i, 2)
                let lo = KitNumber.at(L, -2)
                let hi = KitNumber.at(L, -1)
                luashim_pop(L, 2)
                guard let lo, let hi, lo.double.isFinite, hi.double.isFinite, !(hi < lo) else {
                    return m.fail("bad field 'range' in \(owner) ({lo, hi} with numbers lo <= hi expected)")
                }
                range = (lo, hi)
            } else if kind == .slider {
                range = (.int(0), .int(1))
            }
            if let i = fields["step"] {
                guard let s = KitNumber.at(L, i), s.double > 0, s.double.isFinite else {
                    return bad("step", "positive number")
                }
                step = s
            } else if kind == .stepper {
                step = .int(1)
            }
        }

        // the node
        let node = Node(name: kind.name, meter: m.world.meter)
        node.chargeMemory(NodeKit.controlCost)
        node.host = kind.rawValue
        m.push(node)
        let ni = lua_gettop(L)
        if let title {
            m.pushNodeTable(node, NodeSlot.props)
            m.runtime.pushString(title)
            lua_setfield(L, -2, "title")
            luashim_pop(L, 1)
        }
        // everything else: children, id, props
        luashim_newtable(L)
        let rest = lua_gettop(L)
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            if lua_type(L, -2) == LUA_TSTRING, let key = m.runtime.string(at: -2), keys.contains(key) {
                luashim_pop(L, 1)
                continue
            }

            lua_pushvalue(L, -2)
            luashim_insert(L, -2)
            lua_rawset(L, rest)
        }
        if NodeBinding.configure(m, node, ni, rest) == LUASHIM_RAISE { return LUASHIM_RAISE }

        // the control
        let k = m.kit.kitCreating(node)
        let c = ControlState(kind: kind, meter: m.world.meter)
        k.control = c
        if let i = fields["disabled"] {
            switch m.disabledSetting(for: node, at: i, field: "disabled") {
            case .failure(let f): return f.status
            case .success(let setting): k.disabled = setting
            }
        }
        c.range = range
        c.step = step
        func slot(_ key: String) -> KitSlot? {
            guard let i = fields[key], m.isCallable(at: i) else { return nil }
            return KitSlot(m, node: node, valueAt: i)
        }
        for key in ["text", "value", "isOn"] {
            guard let i = fields[key] else { continue }
            if m.object(at: i, .state, as: StateBox.self) != nil {
                StateBinding.pushDerived(m, stateAt: i)
                c.binding = KitSlot(m, node: node, valueAt: -1)
                luashim_pop(L, 1)
            } else {
                c.binding = KitSlot(m, node: node, valueAt: i)
            }
        }
        let label = title ?? m.nodeTitle(node)
        if let action = slot("action") {
            k.handlers.append(
                ControlHandler(
                    event: .touchUpInside, id: "action", title: label,
                    kind: .action(action, kind == .asyncButton ? .task : .senderAction)))
        }
        if let f = slot("onEditingChanged") {
            k.handlers.append(
                ControlHandler(
                    event: .editingDidBegin, id: "onEditingChanged", title: nil,
                    kind: .action(f, .bool(true))))
            k.handlers.append(
                ControlHandler(
                    event: .editingDidEnd, id: "onEditingChanged", title: nil,
                    kind: .action(f, .bool(false))))
        }
        if let f = slot("onCommit") {
            k.handlers.append(
                ControlHandler(
                    event: .primaryActionTriggered, id: "onCommit", title: nil,
                    kind: .action(f, .none)))
        }
        if kind == .stepper, fields["value"] == nil {
            c.canIncrement = isFunction("onIncrement")
            c.canDecrement = isFunction("onDecrement")
            if let f = slot("onIncrement") {
                k.handlers.append(
                    ControlHandler(
                        event: .valueChanged, id: "onIncrement", title: nil,
                        kind: .action(f, .none), direction: 1))
            }
            if let f = slot("onDecrement") {
                k.handlers.append(
                    ControlHandler(
                        event: .valueChanged, id: "onDecrement", title: nil,
                        kind: .action(f, .none), direction: -1))
            }
        }
        if kind == .segmentedControl, let i = fields["segments"] {
            for s in 1...Int(lua_rawlen(L, i)) {
                lua_rawgeti(L, i, lua_Integer(s))
                kitRawField(L, -1, "title")
                let segTitle = m.runtime.string(at: -1) ?? ""
                kitRawField(L, -2, "action")
                let action = m.isCallable(at: -1) ? KitSlot(m, node: node, valueAt: -1) : nil
                kitRawField(L, -3, "id")
                let segId = lua_type(L, -1) == LUA_TSTRING ? m.runtime.string(at: -1) : nil
                luashim_pop(L, 4)
                c.insertSegment((segTitle, action, segId), at: c.segments.count)
                // over the cap: the rest is not copied (the limit is raised once this returns)
                if m.runtime.control.pointee.memoryExceeded != 0 { break }
            }
            if let si = fields["selected"] { c.selectedSegment = Int(luashim_tointeger(L, si, nil)) }
        }
        // taps
        switch kind {
        case .button, .asyncButton, .toggle, .textField, .secureField:
            // [unowned(unsafe) m]: tap actions run only in this state's `tap` (proof at `ModuleState`)
            node.onTapGesture(
                count: 1,
                action: .perform { [weak node, unowned(unsafe) m] in
                    guard let node else { return true }
                    try ControlsInput.tapControl(m, node)
                    return true  // (the control's action trace records what its handlers raised)
                }, isHidden: true)
        default:
            break
        }
        lua_settop(L, ni)
        return 1
    }
}
