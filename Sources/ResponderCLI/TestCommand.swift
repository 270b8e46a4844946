import ArgumentParser
import ResponderLua
import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `responder test [PATH…]`: runs `*_spec.lua` files (busted-compatible API) and plain scripts.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run *_spec.lua files (a busted-compatible API) and plain scripts.",
        discussion: ExitStatusHelp.discussion(
            """
            Folders are searched recursively for *_spec.lua (folders starting with '.' are skipped \
            unless named explicitly); a file named explicitly that is not *_spec.lua runs as \
            a plain script: one test that passes when the script ends without error (it has the test \
            API too, as busted runs any file named to it: the tests it registers run instead). Each file runs \
            in a fresh Lua state in an isolated worker process; each `it` in a fresh world \
            (responder.reset()). --filter is a Lua pattern matched against full test names \
            ("describe path it-name"); a filter that is not a valid pattern matches as plain text. \
            The run ends with 'N passed, N failed, N skipped' on stdout (on stderr when a machine \
            format is written to stdout); the exit status is 1 when any test failed, 3 when a limit stopped a spec file. busted's flags \
            and its .busted file (tasks, -r TASK) are read as busted reads them; --seed seeds \
            math.random and also the shuffled order and randomize(), as busted's --seed does.
            """)
    )

    @Argument(
        help:
            "Spec files, folders or plain scripts (default: the current folder, or busted's ROOT from .busted)."
    )
    var paths: [String] = []

    @Option(help: "Run only tests whose full name matches this Lua pattern (or plain text); repeatable.")
    var filter: [String] = []

    // (.unconditional: `--jobs -1` is a bad count, not a missing one)
    @Option(parsing: .unconditional, help: "Worker processes to run files in parallel (default: the number of cores).")
    var jobs: Int?

    @Option(help: "Report format: pretty, tap, junit or json.")
    var format: String?

    @Option(
        name: .customLong("output-file"), help: "Write the report to this file (the summary line still goes to stdout)."
    )
    var outputFile: String?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help:
            "busted's output handler: utfTerminal (pretty), plainTerminal (pretty without colour), TAP, junit or json.")
    var handler: String?

    @Option(help: "Run only shard K of N (files split by sorted position: file i goes to shard i mod N + 1).")
    var shard: String?

    @Flag(name: .customLong("update-snapshots"), help: "Rewrite snapshots that do not match.")
    var updateSnapshots = false

    /// busted's own flags (SPEC §3.7).
    @OptionGroup var busted: BustedFlags

    /// `--safety`, the limits and `--seed` (which here also seeds the shuffled order and
    /// `randomize()`, as busted's `--seed` does).
    @OptionGroup var scenario: ScenarioFlags

    @OptionGroup var coverageOptions: CoverageOptions

    @Flag(help: .hidden)
    var worker = false

    /// busted's output handlers and the report format each stands for.
    static let handlers = [
        "utfTerminal": "pretty", "plainTerminal": "pretty", "TAP": "tap", "junit": "junit",
        "json": "json",
    ]

    func validate() throws {
        try scenario.check()
        try coverageOptions.check(also: busted.coverageShort)
        if let format, !["pretty", "tap", "junit", "json"].contains(format) {
            throw ValidationError("--format must be pretty, tap, junit or json (got '\(format)')")
        }
        if let handler, Self.handlers[handler] == nil {
            throw ValidationError(
                "-o/--output must be one of busted's output handlers utfTerminal, plainTerminal, TAP, junit or json (got '\(handler)'); write a report to a file with --output-file"
            )
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let shard, Shard.parse(shard) == nil {
            throw ValidationError("--shard must be K/N with 1 <= K <= N (got '\(shard)')")
        }
        try busted.check()
    }

    /// The values given, without ArgumentParser's wrappers (``FastTest`` fills the same by hand).
    var settings: TestSettings {
        TestSettings(
            paths: paths, filter: filter, jobs: jobs, format: format, outputFile: outputFile, handler: handler,
            shard: shard, updateSnapshots: updateSnapshots, busted: busted.settings, scenario: scenario.settings,
            coverageOptions: coverageSettings)
    }

    /// `--coverage`, with busted's `-c` (on) and `--no-coverage` (off) folded in.
    var coverageSettings: CoverageSettings {
        var c = coverageOptions.settings
        if let on = busted.settings.coverage { c.coverage = on }
        return c
    }

    /// The options a worker gets (already resolved by the parent).
    var workerOptions: TestRunOptions {
        WorkerSettings(
            settings: scenario.settings, filters: filter, filterOut: busted.filterOut, tags: busted.tags,
            excludeTags: busted.excludeTags, shuffleTests: busted.shuffleTests ?? false,
            sortTests: busted.sortTests ?? false, shuffleSeed: busted.shuffleSeed, repeatCount: busted.repeatCount,
            list: busted.list, lazySetup: busted.lazy ?? false, suppressPending: busted.suppressPending ?? false,
            keepGoing: busted.keepGoing ?? true, modulePaths: busted.lpath, helper: busted.helper,
            statements: busted.statements, updateSnapshots: updateSnapshots, coverage: coverageSettings.coverage
        ).options
    }

    func run() throws {
        if worker { TestWorker.run(options: workerOptions) }
        try settings.execute()
    }
}

/// A small seeded generator for `--shuffle-files` (reproducible with `--seed`).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
