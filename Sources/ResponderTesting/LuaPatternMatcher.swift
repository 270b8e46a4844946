import CLua
import CLuaShim
import ResponderLua

/// Matches text against Lua patterns (`string.find`), for options that take Lua patterns outside
/// a script (busted's `--pattern` / `--exclude-pattern` on file names; `--filter` and
/// `--filter-out` are checked with it). A malformed pattern is a usage error reported by `init`.
public final class LuaPatternMatcher {
    private let runtime: LuaRuntime
    public let patterns: [String]

    /// Checks every pattern once; throws the first malformed one's error. Each match runs under
    /// the wall-clock limit `timeoutSeconds`: a pattern can take exponential time on a long name
    /// (`.-.-.-.-x` on 200 letters), in C code no instruction count sees, and file discovery hung
    /// past `--timeout` (found by an adversary probe).
    public init(_ patterns: [String], timeoutSeconds: Double = LuaLimits.defaultTimeoutSeconds) throws(LuaFailure) {
        runtime = try LuaRuntime(
            limits: LuaLimits(maxInstructions: 100_000_000, maxMemoryMiB: 64, timeoutSeconds: timeoutSeconds))
        self.patterns = patterns
        if let failure = runtime.load(
            PackageResources.pattern_find_lua,
            // (named for what it does: a time limit met in it names this chunk)
            chunkname: "=matching a file name pattern")
        {
            throw failure
        }
        lua_setglobal(runtime.L, "__find")
        for p in patterns {
            if case .failure(let failure) = find("", p) {
                throw LuaFailure(kind: .script, message: "bad pattern '\(p)': \(failure.message)")
            }
        }
    }

    private func find(_ text: String, _ pattern: String) -> Result<Bool, LuaFailure> {
        let L = runtime.L
        lua_getglobal(L, "__find")
        runtime.pushString(text)
        runtime.pushString(pattern)
        runtime.startTimeout()
        defer { runtime.stopTimeout() }
        if let failure = runtime.call(2, 1) { return .failure(failure) }
        let r = lua_toboolean(L, -1) != 0
        luashim_pop(L, 1)
        return .success(r)
    }

    /// Whether `text` matches any of the patterns.
    public func matchesAny(_ text: String) -> Bool {
        for p in patterns {
            if case .success(true) = find(text, p) { return true }
        }
        return false
    }
}
