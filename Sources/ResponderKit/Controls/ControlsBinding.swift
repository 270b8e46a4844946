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

    /// The registry key of the kit's AsyncButton starter, `fn(button, action)` (async.lua).
    static let asyncStarterKey = "responder.kit.asyncStart"

    /// `K.asyncButton(title, table, starter)`: the AsyncButton control (async.lua has checked the
    /// title, the action and `disabledWhenLoading`); `starter(button, action)` starts the action as
    /// a task of the button when its `touchUpInside` entry runs.
    static let asyncButton: LuaSwiftFunction = { L in
        let m = state(L)
        guard lua_type(L, 1) == LUA_TSTRING, lua_type(L, 2) == LUA_TTABLE, lua_type(L, 3) == LUA_TFUNCTION else {
            return m.argError(1, "AsyncButton", "title, table and starter", 1)
        }
        lua_pushvalue(L, 3)
        lua_setfield(L, luashim_registryindex(), asyncStarterKey)
        return build(m, .asyncButton, title: m.runtime.string(at: 1), table: 2)
    }

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
