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

    func refusesInput(_ m: ModuleState, _ name: String, _ node: Node) throws -> Bool {
        try m.refusesInput(name, node)
    }
}
