import ResponderLua

/// Builds runtimes with the `responder` module and the pattern kit installed, their names global.
public enum Scenario {
    /// A fresh sandboxed runtime with the `responder` module (SPEC §2) and its kit (§2.9) installed.
    public static func makeRuntime(_ options: ScenarioOptions) throws(LuaFailure) -> LuaRuntime {
        let runtime = try LuaRuntime(limits: options.limits, seed: options.seed)
        ResponderModule.install(into: runtime, options: options, extension: PatternKit())
        CoverageRecorder.install(options.coverage, in: runtime)
        return runtime
    }
}
