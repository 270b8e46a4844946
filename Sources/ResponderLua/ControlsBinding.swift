import CLua
import CLuaShim
import ResponderEngine

/// SPEC §2.9 part A: state and bindings, controls, simulated input, target–action, closure sugar.
enum ControlsBinding {
    /// Module functions (also globals).
    static let functions: [(String, LuaSwiftFunction)] = []
    /// Methods added to every node.
    static let nodeMethods: [(String, LuaSwiftFunction)] = []
    /// Called once per state after the core module is installed (metatables, hooks).
    static func install(_ m: ModuleState) {}
    /// Extra node fields (`node.on`, `control.value`, …): pushes one value and returns true, or
    /// pushes nothing and returns false.
    static func property(_ m: ModuleState, _ node: Node, _ key: String) -> Bool { false }
}
