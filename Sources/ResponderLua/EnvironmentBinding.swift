import CLua
import CLuaShim
import ResponderEngine

/// SPEC §2.9 part B: environment and preferences, notifications and observation, appear and
/// disappear, async actions on a virtual clock.
enum EnvironmentBinding {
    /// Module functions (also globals).
    static let functions: [(String, LuaSwiftFunction)] = []
    /// Methods added to every node.
    static let nodeMethods: [(String, LuaSwiftFunction)] = []
    /// Called once per state after the core module is installed (metatables, hooks).
    static func install(_ m: ModuleState) {}
}
