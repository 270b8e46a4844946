/// Settings for a scenario runtime (what `run`, `test` and `repl` share).
public struct ScenarioOptions: Sendable {
    /// Sandbox limits.
    public var limits: LuaLimits
    /// Seed for `math.random`, if any.
    public var seed: Int64?
    /// Root safety level: "relaxed", "strict" or "disabled".
    public var safety: String
    /// Print each top-level dispatch's trace to stderr.
    public var trace: Bool
    /// What coverage the runtime records (`runtime.coverage`).
    public var coverage: CoverageMode = .off

    public init(limits: LuaLimits = .defaults, seed: Int64? = nil, safety: String = "relaxed", trace: Bool = false) {
        self.limits = limits
        self.seed = seed
        self.safety = safety
        self.trace = trace
    }
}

/// What a runtime records for coverage reports.
public enum CoverageMode: Sendable, Equatable {
    /// Nothing.
    case off
    /// Responders, declarations and controls (no line hook): what `explore` reports.
    case responders
    /// Lines of the user's files too (`--coverage`).
    case linesAndResponders
}
