import ArgumentParser
import ResponderLua

/// `--safety`, `--max-instructions`, `--max-memory` and `--timeout`: the sandbox options every
/// command that runs scripts shares (`run`, `graph`, `repl`, `test`, `explore`).
struct SandboxFlags: ParsableArguments {
    @Option(help: "Default safety level at the root: relaxed, strict or disabled.")
    var safety: String = ScenarioSettings.defaults.safety

    // (numeric options take the next word even when it starts with '-': `--timeout -1` is then
    // refused for its value, not read as a missing value; and `--seed -5` is a seed)
    @Option(
        name: .customLong("max-instructions"), parsing: .unconditional,
        help: "Instruction budget per file, counted exactly (default 1000000000, sampled).")
    var maxInstructions: Int64?

    @Option(name: .customLong("max-memory"), parsing: .unconditional, help: "Memory cap per Lua state in MiB.")
    var maxMemory: Int = ScenarioSettings.defaults.maxMemory

    @Option(
        name: .customLong("timeout"), parsing: .unconditional,
        help: """
            Wall-clock limit in seconds: the whole script (run, graph), each file (test), each entry (repl), \
            each run (explore); default 60 (explore: none).
            """)
    var timeout: Double?

    /// Rejects values out of range. Commands call it from their own `validate()` (this type has
    /// no `validate()`, which ArgumentParser would run earlier, while decoding), so the message
    /// keeps its place among each command's checks.
    func check() throws {
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    /// The parsed values (no seed).
    var settings: ScenarioSettings {
        ScenarioSettings(safety: safety, maxInstructions: maxInstructions, maxMemory: maxMemory, timeout: timeout)
    }
}

/// ``SandboxFlags`` and `--seed` (for `math.random`): the options of the commands that run a
/// scenario (`run`, `graph`, `repl`, `test`; `explore`'s `--seed` seeds its actions instead).
struct ScenarioFlags: ParsableArguments {
    @OptionGroup var sandbox: SandboxFlags

    @Option(parsing: .unconditional, help: "Seed for math.random.")
    var seed: Int64?

    /// See ``SandboxFlags/check()``.
    func check() throws { try sandbox.check() }

    /// The parsed values.
    var settings: ScenarioSettings {
        var settings = sandbox.settings
        settings.seed = seed
        return settings
    }
}

/// The values of ``ScenarioFlags``, which `FastRun` fills by hand: what a scenario runtime is
/// made with. An option not given stays nil where its default depends on the command.
struct ScenarioSettings: Equatable {
    /// The levels `--safety` accepts.
    static let levels = ["relaxed", "strict", "disabled"]
    /// Every option at its default.
    static let defaults = ScenarioSettings()

    var safety = "relaxed"
    var seed: Int64?
    /// `--max-instructions`: nil counts the default budget by sampling, a given budget exactly.
    var maxInstructions: Int64?
    var maxMemory = 512
    /// `--timeout`: nil is the command's default (60 s; for `explore`, per run).
    var timeout: Double?

    /// Why the values cannot be used (the usage error's message), or nil.
    var problem: String? {
        if let maxInstructions, maxInstructions <= 0 { return "--max-instructions must be a positive number" }
        if let timeout, !LuaLimits.isValidTimeout(timeout) {
            return "--timeout must be a number of seconds above 0 and at most "
                + "\(Int(LuaLimits.maximumTimeoutSeconds)) (got \(timeout))"
        }
        if maxMemory <= 0 || maxMemory > LuaLimits.maximumMemoryMiB {
            return "--max-memory must be a number of MiB from 1 to \(LuaLimits.maximumMemoryMiB) (got \(maxMemory))"
        }
        if !Self.levels.contains(safety) { return "--safety must be relaxed, strict or disabled (got '\(safety)')" }
        return nil
    }

    /// The sandbox limits (the wall-clock limit at its default when `--timeout` is not given).
    var limits: LuaLimits {
        LuaLimits(
            maxInstructions: maxInstructions ?? LuaLimits.defaults.maxInstructions, maxMemoryMiB: maxMemory,
            exactInstructions: maxInstructions != nil,
            timeoutSeconds: timeout ?? LuaLimits.defaultTimeoutSeconds)
    }

    /// The runtime options.
    func options(trace: Bool = false) -> ScenarioOptions {
        ScenarioOptions(limits: limits, seed: seed, safety: safety, trace: trace)
    }

    /// Sets the option `name` (`--safety`, …) from its text, as `FastRun` reads it; false when
    /// the name is not one of these options or the text is not a number.
    mutating func set(_ name: String, _ text: String) -> Bool {
        switch name {
        case "--safety":
            safety = text
        case "--seed":
            guard let n = Int64(text) else { return false }
            seed = n
        case "--max-instructions":
            guard let n = Int64(text) else { return false }
            maxInstructions = n
        case "--max-memory":
            guard let n = Int(text) else { return false }
            maxMemory = n
        case "--timeout":
            guard let n = Double(text) else { return false }
            timeout = n
        default:
            return false
        }
        return true
    }

    /// The options as command-line arguments for worker and session processes (only those
    /// given, so defaults stay defaults).
    var arguments: [String] {
        var args = ["--safety", safety, "--max-memory", String(maxMemory)]
        if let maxInstructions { args += ["--max-instructions", String(maxInstructions)] }
        if let timeout { args += ["--timeout", String(timeout)] }
        if let seed { args += ["--seed", String(seed)] }
        return args
    }
}
