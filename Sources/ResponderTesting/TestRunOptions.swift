import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How test files are run.
public struct TestRunOptions: Sendable {
    public var limits: LuaLimits
    public var safety: String
    /// Lua patterns matched against full test names (a test runs when one matches); a filter that
    /// is not a valid pattern is matched as plain text.
    public var filters: [String] = []
    /// The first of `filters` (setting it replaces them all).
    public var filter: String? {
        get { filters.first }
        set { filters = newValue.map { [$0] } ?? [] }
    }
    public var updateSnapshots: Bool
    public var seed: Int64?
    /// Record coverage (lines and responders) for each file.
    public var coverage = false
    /// busted's `--filter-out`: Lua patterns; a test or describe whose full name matches one is
    /// not run.
    public var filterOut: [String] = []
    /// busted's `--tags`: only tests whose full name has one of these `#tag`s run.
    public var tags: [String] = []
    /// busted's `--exclude-tags`: tests and describes whose name has one of these `#tag`s do not run.
    public var excludeTags: [String] = []
    /// busted's `--shuffle-tests`: randomize the order inside every block (seeded by `shuffleSeed`).
    public var shuffleTests = false
    /// busted's `--sort-tests`: sort every block's children by name.
    public var sortTests = false
    /// The seed for shuffled order and `randomize()` (busted's `--seed`).
    public var shuffleSeed: Int64 = 0
    /// busted's `--repeat`.
    public var repeatCount = 1
    /// busted's `--list`: print the tests (`file:line: name`) instead of running them.
    public var list = false
    /// busted's `--lazy`: `setup`/`teardown` are lazy.
    public var lazySetup = false
    /// busted's `--suppress-pending`.
    public var suppressPending = false
    /// busted's `--keep-going` (default) / `--no-keep-going`: stop running tests after the first
    /// failure or error.
    public var keepGoing = true
    /// busted's `--lpath`: module path templates (`dir/?.lua`) where `require` also looks for `.lua`
    /// source files.
    public var modulePaths: [String] = []
    /// busted's `--helper`: a Lua file run in each spec file's state before the spec.
    public var helper: String?
    /// busted's `-e`: Lua statements run in each spec file's state before the spec.
    public var statements: [String] = []

    public init(
        limits: LuaLimits = .defaults, safety: String = "relaxed", filter: String? = nil,
        updateSnapshots: Bool = false, seed: Int64? = nil
    ) {
        self.limits = limits
        self.safety = safety
        self.filters = filter.map { [$0] } ?? []
        self.updateSnapshots = updateSnapshots
        self.seed = seed
    }
}
