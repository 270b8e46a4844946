/// Resource limits of one sandboxed Lua state (SPEC §4).
public struct LuaLimits: Sendable, Equatable {
    /// Instruction budget per file; `nil` means unlimited.
    public var maxInstructions: Int64?
    /// Memory cap in MiB; `nil` means unlimited.
    public var maxMemoryMiB: Int?

    /// The CLI defaults: 1,000,000,000 instructions and 512 MiB.
    public static let defaults = LuaLimits(maxInstructions: 1_000_000_000, maxMemoryMiB: 512)
    /// No limits at all (benchmarks, trusted host code).
    public static let unlimited = LuaLimits(maxInstructions: nil, maxMemoryMiB: nil)

    public init(maxInstructions: Int64?, maxMemoryMiB: Int?) {
        self.maxInstructions = maxInstructions
        self.maxMemoryMiB = maxMemoryMiB
    }

    /// The largest memory cap accepted, in MiB (1 TiB): the cap in bytes plus the fixed
    /// overhead stays far from overflowing.
    public static let maximumMemoryMiB = 1 << 20

    /// The cap in bytes (0 = none); a value above ``maximumMemoryMiB`` counts as that maximum.
    var memoryBytes: Int { max(0, min(maxMemoryMiB ?? 0, Self.maximumMemoryMiB)) << 20 }
    var budget: Int64 { maxInstructions ?? -1 }
}
