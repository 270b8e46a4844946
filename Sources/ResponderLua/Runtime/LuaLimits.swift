/// Resource limits of one sandboxed Lua state (SPEC §4).
public struct LuaLimits: Sendable, Equatable {
    /// Instruction budget per file; `nil` means unlimited.
    public var maxInstructions: Int64?
    /// Memory cap in MiB; `nil` means unlimited.
    public var maxMemoryMiB: Int?
    /// Whether the budget is counted exactly (a permanent count hook, which costs pure-Lua code
    /// the hook tax) or sampled (the hook is off between timer ticks; see `luashim_limits.h`).
    /// The CLI counts exactly when `--max-instructions` is given.
    public var exactInstructions: Bool
    /// Wall-clock limit in seconds (`--timeout`); `nil` means none. What it covers (the whole
    /// script, a test file, a REPL entry) is decided by whoever calls `LuaRuntime.startTimeout`.
    public var timeoutSeconds: Double?

    /// The default wall-clock limit of every command, in seconds.
    public static let defaultTimeoutSeconds: Double = 60
    /// The CLI defaults: 1,000,000,000 instructions (sampled), 512 MiB and a 60 s timeout.
    public static let defaults = LuaLimits(
        maxInstructions: 1_000_000_000, maxMemoryMiB: 512,
        exactInstructions: false, timeoutSeconds: defaultTimeoutSeconds)
    /// No limits at all (benchmarks, trusted host code).
    public static let unlimited = LuaLimits(maxInstructions: nil, maxMemoryMiB: nil)

    /// Limits with an explicitly chosen budget, counted exactly unless told otherwise.
    public init(
        maxInstructions: Int64?, maxMemoryMiB: Int?, exactInstructions: Bool = true,
        timeoutSeconds: Double? = nil
    ) {
        self.maxInstructions = maxInstructions
        self.maxMemoryMiB = maxMemoryMiB
        self.exactInstructions = exactInstructions
        self.timeoutSeconds = timeoutSeconds
    }

    /// The largest memory cap accepted, in MiB (1 TiB): the cap in bytes plus the fixed
    /// overhead stays far from overflowing.
    public static let maximumMemoryMiB = 1 << 20

    /// The cap in bytes (0 = none); a value above ``maximumMemoryMiB`` counts as that maximum.
    var memoryBytes: Int { max(0, min(maxMemoryMiB ?? 0, Self.maximumMemoryMiB)) << 20 }
    var budget: Int64 { maxInstructions ?? -1 }
    var timeoutMilliseconds: Int64 { timeoutSeconds.map { Int64(($0 * 1000).rounded(.up)) } ?? 0 }

    /// The largest `--timeout` accepted, in seconds (about 11.5 days).
    public static let maximumTimeoutSeconds: Double = 1_000_000

    /// Whether `seconds` is a usable wall-clock limit (above 0, at most the maximum, finite).
    public static func isValidTimeout(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds >= 0.001 && seconds <= maximumTimeoutSeconds
    }

    /// "30 s", "0.5 s": how messages quote the timeout.
    public static func describe(seconds: Double) -> String {
        let ms = Int64((seconds * 1000).rounded(.up))
        if ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(Double(ms) / 1000) s"
    }
}
