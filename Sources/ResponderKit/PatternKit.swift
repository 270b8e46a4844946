import ResponderEngine
import ResponderLua

/// The pattern kit (SPEC §2.9): controls and state, target–action, environment, preferences,
/// notifications and async actions, as the `responder` module's extension.
struct PatternKit: ModuleExtension {
    var functions: [(String, LuaSwiftFunction)] { ControlsBinding.functions }
    var methods: [(String, LuaSwiftFunction)] { ControlsBinding.nodeMethods }
    let luaFunctionNames = EnvironmentBinding.functionNames
    let luaMethodNames = EnvironmentBinding.methodNames

    func install(_ m: ModuleState) {
        ControlsBinding.install(m)
        EnvironmentBinding.install(m)
    }

    func pushLuaFunction(_ m: ModuleState, _ kind: String, _ name: String) -> Bool {
        EnvironmentBinding.realFunction(m, kind, name)
    }

    func pushProperty(_ m: ModuleState, _ node: Node, _ key: String) -> Bool {
        ControlsBinding.property(m, node, key)
    }

    func assignmentHint(_ m: ModuleState, _ node: Node, _ key: String) -> String? {
        ControlsBinding.assignmentHint(m, node, key)
    }

    func refusesInput(_ m: ModuleState, _ name: String, _ node: Node) throws -> Bool {
        try m.refusesInput(name, node)
    }

    /// `disabled = …` in an `EventButton`'s table, as in any control's (SPEC §2.10).
    func configureField(_ m: ModuleState, _ node: Node, _ key: String, at index: Int32) -> Int32? {
        guard key == "disabled", node.host == NodeBinding.Kind.eventButton.rawValue else { return nil }
        switch m.disabledSetting(for: node, at: index, field: "disabled") {
        case .failure(let f): return f.status
        case .success(let setting):
            m.kit.kitCreating(node).disabled = setting
            return 0
        }
    }

    func pushRegistrationHandle(
        _ m: ModuleState, _ kind: String, _ node: Node, remover: LuaSwiftFunction, upvalues: Int32
    ) {
        m.pushKitNodeHandle(kind, node, remover: remover, upvalues: upvalues)
    }
}
