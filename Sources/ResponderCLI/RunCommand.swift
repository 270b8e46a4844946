import ArgumentParser
import ResponderLua
#if canImport(Glibc)
import Glibc
#endif

/// Options shared by the commands that execute scripts.
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-instructions"),
            help: "Instruction budget per file, counted exactly (default 1000000000, sampled).")
    var maxInstructions: Int64?

    @Option(name: .customLong("max-memory"), help: "Memory cap per Lua state in MiB (default 512).")
    var maxMemory: Int = 512

    @Option(name: .customLong("timeout"), help: "Wall-clock limit in seconds: the whole script (run, graph), each file (test), each entry (repl), each run (explore); default 60 (explore: none).")
    var timeout: Double?

    var limits: LuaLimits {
        LuaLimits(maxInstructions: maxInstructions ?? LuaLimits.defaults.maxInstructions, maxMemoryMiB: maxMemory,
                  exactInstructions: maxInstructions != nil,
                  timeoutSeconds: timeout ?? LuaLimits.defaultTimeoutSeconds)
    }

    /// The options again as worker arguments (only those given, so defaults stay defaults).
    var arguments: [String] {
        var out = ["--max-memory", String(maxMemory)]
        if let maxInstructions { out += ["--max-instructions", String(maxInstructions)] }
        if let timeout { out += ["--timeout", String(timeout)] }
        return out
    }

    func validate() throws {
        if let maxInstructions, maxInstructions <= 0 { throw ValidationError("--max-instructions must be a positive number") }
        if let timeout, !LuaLimits.isValidTimeout(timeout) {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most \(Int(LuaLimits.maximumTimeoutSeconds)) (got \(timeout))")
        }
        if maxMemory <= 0 || maxMemory > LuaLimits.maximumMemoryMiB {
            throw ValidationError("--max-memory must be a number of MiB from 1 to \(LuaLimits.maximumMemoryMiB) (got \(maxMemory))")
        }
    }
}

/// `responder run FILE.lua`: runs one scenario script.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a Lua scenario script."
    )

    @Argument(help: "The script to run.")
    var file: String

    @OptionGroup var safetyOption: SafetyOption

    @Flag(help: "Print each top-level dispatch's trace to stderr.")
    var trace = false

    @Option(help: "Seed for math.random.")
    var seed: Int64?

    @OptionGroup var limitOptions: LimitOptions

    @OptionGroup var coverageOptions: CoverageOptions

    @Argument(parsing: .postTerminator, help: "Arguments passed to the script as `arg`.")
    var arguments: [String] = []

    func validate() throws {
        try safetyOption.check()
        try coverageOptions.check()
    }

    func run() throws {
        try ScriptFile.check(file, command: "run")
        let outcome = ScriptRunner.run(
            file: file, arguments: arguments, limits: limitOptions.limits,
            seed: seed, safety: safetyOption.safety, trace: trace,
            coverage: coverageOptions.coverage ? coverageOptions : nil)
        throw ExitCode(outcome)
    }
}
