import CLua
import CLuaShim

/// The `responder` Lua module (SPEC §2): installed into a runtime, its names also global.
public enum ResponderModule {
    /// Installs the module table as `require "responder"` and copies its public names to globals.
    public static func install(into runtime: LuaRuntime, options: ScenarioOptions) {
        // Filled in by the engine binding.
    }
}
