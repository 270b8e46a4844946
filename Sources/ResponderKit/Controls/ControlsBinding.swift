import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// SPEC §2.9 part A: state and bindings, controls, simulated input, target–action, closure sugar.
enum ControlsBinding: ModuleBinding {
    /// Module functions (also globals).
    static let functions: [(String, LuaSwiftFunction)] = [
        ("State", StateBinding.makeState),
        ("Binding", StateBinding.makeBinding),
        ("Button", button),
        ("TextField", textField),
        ("SecureField", secureField),
        ("Slider", slider),
        ("Stepper", stepper),
        ("Toggle", toggle),
        ("SegmentedControl", segmentedControl),
        ("typeText", ControlsInput.typeText),
        ("commit", ControlsInput.commit),
        ("focus", ControlsInput.focus),
        ("blur", ControlsInput.blur),
        ("slide", ControlsInput.slide),
        ("increment", ControlsInput.increment),
        ("decrement", ControlsInput.decrement),
        ("toggle", ControlsInput.toggle),
        ("selectSegment", ControlsInput.selectSegment),
        ("sendActions", TargetAction.sendActions),
    ]

    /// Methods added to every node.
    static let nodeMethods: [(String, LuaSwiftFunction)] =
        [
            ("onChange", StateBinding.onChange),
            ("addAction", TargetAction.addAction),
            ("addTarget", TargetAction.addTarget),
            ("removeAction", TargetAction.removeAction),
            ("removeTarget", TargetAction.removeTarget),
            ("eventHandlers", TargetAction.eventHandlers),
            ("canPerform", TargetAction.canPerform),
            ("disabled", ControlsEnabled.disabled),
        ] + SegmentedControlMethods.methods

    /// Called once per state after the core module is installed (metatables, hooks).
    static func install(_ m: ModuleState) {
        let L = m.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        m.lazyMetatable(
            kind: .state, label: "State",
            fields: [("__newindex", StateBinding.stateSet), ("__tostring", StateBinding.stateToString)],
            index: StateBinding.stateGet, methods: [("binding", StateBinding.stateBindingMethod)])
        m.lazyMetatable(
            kind: .binding, label: "Binding",
            fields: [("__newindex", StateBinding.bindingSet), ("__tostring", StateBinding.bindingToString)],
            index: StateBinding.bindingGet)

        // `node.on` proxies share one metatable
        luashim_newtable(L)
        luashim_push_swift_function(L, TargetAction.onIndex)
        lua_setfield(L, -2, "__index")
        luashim_push_swift_function(L, TargetAction.onNewIndex)
        lua_setfield(L, -2, "__newindex")
        m.runtime.pushString("locked")
        lua_setfield(L, -2, "__metatable")
        lua_setfield(L, luashim_registryindex(), TargetAction.onMetaKey)

        // t[k] in protected mode (targets may have __index metamethods)
        if m.runtime.loadHostChunk(
            PackageResources.protected_index_lua, chunkname: "=Sources/ResponderKit/Lua/protected_index.lua") == nil
        {
            lua_setfield(L, luashim_registryindex(), TargetAction.indexKey)
        }
    }

    /// Which nodes a field the kit adds is defined on.
    enum FieldScope: Equatable {
        /// Every node.
        case everyNode
        /// Nodes with a loading state (AsyncButtons).
        case asyncButton
        /// Controls of these kinds.
        case controls(Set<ControlKind>)
    }

    /// The node fields the kit adds (SPEC §2.9, §2.10), by name. `property` answers these and no
    /// others, so this table is the complete list (the editor definition file is tested against it).
    static let fields: [String: FieldScope] = [
        "on": .everyNode,
        "isEnabled": .everyNode,
        "isLoading": .asyncButton,
        "title": .controls(Set(ControlKind.allCases)),
        "text": .controls([.textField, .secureField]),
        "isEditing": .controls([.textField, .secureField, .slider, .stepper]),
        "value": .controls([.slider, .stepper]),
        "range": .controls([.slider, .stepper]),
        "step": .controls([.slider, .stepper]),
        "isOn": .controls([.toggle]),
        "selectedSegment": .controls([.segmentedControl]),
        "segments": .controls([.segmentedControl]),
    ]

    /// Extra node fields (`node.on`, `control.value`, …; see `fields`): pushes one value and
    /// returns true, or pushes nothing and returns false.
    /// What to write instead of assigning the read-only field `key` the kit gives `node`
    /// (`button.isEnabled = false`, as in UIKit), or nil when the node has no such field.
    static func assignmentHint(_ m: ModuleState, _ node: Node, _ key: String) -> String? {
        guard let scope = fields[key] else { return nil }
        switch (scope, key) {
        case (.everyNode, "isEnabled"): return "disable it with node:disabled(true), or disabled = true in its table"
        case (.controls, "text"), (.controls, "value"), (.controls, "isOn"):
            guard let kind = ControlKind.of(node), case .controls(let kinds) = scope, kinds.contains(kind) else {
                return nil
            }
            return "it reads the control's binding: set the State or Binding given as '\(key)'"
        default: return nil
        }
    }

    static func property(_ m: ModuleState, _ node: Node, _ key: String) -> Bool {
        guard let scope = fields[key] else { return false }
        let L = m.L
        switch scope {
        case .everyNode:
            if key == "on" {
                TargetAction.pushOnProxy(m, node)
            } else {  // isEnabled
                let disabled = (try? m.isDisabled(node)) ?? false
                lua_pushboolean(L, disabled ? 0 : 1)
            }
            return true
        case .asyncButton:  // isLoading
            guard m.kit.kit(node)?.loading != nil else { return false }
            let loading = (try? m.loadingState(node).loading) ?? false
            lua_pushboolean(L, loading ? 1 : 0)
            return true
        case .controls(let kinds):
            guard let kind = ControlKind.of(node), kinds.contains(kind), let c = m.kit.kit(node)?.control else {
                return false
            }
            switch key {
            case "title":
                m.pushNodeTable(node, NodeSlot.props)
                kitRawField(L, -1, "title")
                luashim_remove(L, -2)
            case "text", "value", "isOn":
                let top = lua_gettop(L)
                let ok = (try? m.pushControlValue(node, c, reporting: false)) ?? false
                if !ok {
                    lua_settop(L, top)
                    lua_pushnil(L)
                }
            case "isEditing":
                lua_pushboolean(L, c.isEditing ? 1 : 0)
            case "range":
                guard let (lo, hi) = c.range else {
                    lua_pushnil(L)
                    return true
                }
                lua_createtable(L, 2, 0)
                lo.push(L)
                lua_rawseti(L, -2, 1)
                hi.push(L)
                lua_rawseti(L, -2, 2)
            case "step":
                if let s = c.step { s.push(L) } else { lua_pushnil(L) }
            case "selectedSegment":
                if let i = c.selectedSegment { lua_pushinteger(L, lua_Integer(i)) } else { lua_pushnil(L) }
            case "segments":
                lua_createtable(L, Int32(c.segments.count), 0)
                for (i, s) in c.segments.enumerated() {
                    m.runtime.pushString(s.title)
                    lua_rawseti(L, -2, lua_Integer(i + 1))
                }
            default:
                return false
            }
            return true
        }
    }

    // MARK: - constructors

    static let button: LuaSwiftFunction = { L in constructor(L, .button) }
    static let textField: LuaSwiftFunction = { L in constructor(L, .textField) }
    static let secureField: LuaSwiftFunction = { L in constructor(L, .secureField) }
    static let slider: LuaSwiftFunction = { L in constructor(L, .slider) }
    static let stepper: LuaSwiftFunction = { L in constructor(L, .stepper) }
    static let toggle: LuaSwiftFunction = { L in constructor(L, .toggle) }
    static let segmentedControl: LuaSwiftFunction = { L in constructor(L, .segmentedControl) }

    /// `Kind "Title"` returns a builder taking the table; `Kind { … }` and `Kind("Title", { … })`
    /// build at once.
    static func constructor(_ L: OpaquePointer?, _ kind: ControlKind) -> Int32 {
        let m = state(L)
        switch lua_type(L, 1) {
        case LUA_TSTRING where lua_type(L, 2) == LUA_TTABLE:
            // `Button("Title", { … })`, the call form of `Button "Title" { … }`
            let title = m.runtime.string(at: 1) ?? ""
            return build(m, kind, title: title, table: 2)
        case LUA_TSTRING:
            lua_settop(L, 1)
            lua_pushinteger(L, lua_Integer(kind.rawValue))
            luashim_push_swift_closure(L, builder, 2)
            return 1
        case LUA_TTABLE:
            return build(m, kind, title: nil, table: 1)
        default:
            return m.argError(1, kind.name, "title (string) or table", 1)
        }
    }

    /// The function `Button "Title"` returns: called with the control's table.
    static let builder: LuaSwiftFunction = { L in
        let m = state(L)
        let title = m.runtime.string(at: luashim_upvalueindex(2)) ?? ""
        let kind = ControlKind(rawValue: Int(luashim_tointeger(L, luashim_upvalueindex(3), nil))) ?? .button
        guard lua_type(L, 1) == LUA_TTABLE else {
            return m.argError(1, "\(kind.name) \"\(title)\"", "table", 1)
        }
        return build(m, kind, title: title, table: 1)
    }

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
            m.fail("bad field '\(key)' in \(owner) (\(expected) expected, got \(m.kindName(at: fields[key]!)))")
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
        case .button:
            if fields["action"] == nil {
                return m.fail("\(owner) needs an action: Button \"Title\" { action = function() … end }")
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
                luashim_pop(L, 3)
                guard st == LUA_TSTRING else {
                    return m.fail("bad segment #\(s) in \(owner) (field 'title' must be a string)")
                }
                guard sa == LUA_TNIL || callable else {
                    return m.fail("bad segment #\(s) in \(owner) (field 'action' must be a function)")
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
        let c = ControlState(kind: kind)
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
                    kind: .action(action, .senderAction)))
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
                c.segments.append((segTitle, action, segId))
            }
            if let si = fields["selected"] { c.selectedSegment = Int(luashim_tointeger(L, si, nil)) }
        }
        // taps
        switch kind {
        case .button, .toggle, .textField, .secureField:
            // [unowned(unsafe) m]: tap actions run only in this state's `tap` (proof at `ModuleState`)
            node.onTapGesture(
                count: 1,
                action: .perform { [weak node, unowned(unsafe) m] in
                    guard let node else { return }
                    try ControlsInput.tapControl(m, node)
                }, isHidden: true)
        default:
            break
        }
        lua_settop(L, ni)
        return 1
    }
}

extension ModuleState {
    /// The node's `props.title` as a string, if any.
    func nodeTitle(_ node: Node) -> String? {
        pushNodeTable(node, NodeSlot.props)
        kitRawField(L, -1, "title")
        let s = lua_type(L, -1) == LUA_TSTRING ? runtime.string(at: -1) : nil
        luashim_pop(L, 2)
        return s
    }
}
