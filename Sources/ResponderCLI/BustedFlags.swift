import ArgumentParser

/// busted 2.1.1's own command-line flags, which `responder test` takes beside its own (SPEC §3.7):
/// file patterns, tags and name filters, module paths, helpers, `.busted` tasks, order (shuffle,
/// sort), repetition, listing and stopping. `--seed` comes from ``ScenarioFlags`` (there it also
/// seeds the shuffled order, as busted's does); `-o/--output` and `--output-file` stay with the
/// report options of ``TestCommand``. Values not given stay nil so that a `.busted` file's may apply.
struct BustedFlags: ParsableArguments {

    @Option(
        name: [.customShort("p"), .customLong("pattern")],
        help: "Only run test files whose name matches this Lua pattern (busted's; default: *_spec.lua); repeatable.")
    var pattern: [String] = []

    @Option(
        name: .customLong("exclude-pattern"),
        help: "Do not run test files whose name matches this Lua pattern; repeatable.")
    var excludePattern: [String] = []

    @Option(
        name: [.customShort("t"), .customLong("tags")],
        help: "Only run tests with these #tags (comma-separated; repeatable).")
    var tags: [String] = []

    @Option(name: .customLong("exclude-tags"), help: "Do not run tests with these #tags (comma-separated; repeatable).")
    var excludeTags: [String] = []

    @Option(
        name: .customLong("filter-out"), help: "Do not run tests whose full name matches this Lua pattern; repeatable.")
    var filterOut: [String] = []

    @Option(
        name: [.customShort("m"), .customLong("lpath")],
        help:
            "Module path templates (';'-separated, e.g. 'src/?.lua') where require also finds .lua source files (only files really inside these templates' folders)."
    )
    var lpath: [String] = []

    @Option(name: .customLong("cpath"), help: "Accepted for busted compatibility; C modules are never loaded.")
    var cpath: [String] = []

    @Option(name: .customLong("helper"), help: "A Lua file run in each spec file's state before the spec.")
    var helper: String?

    @Option(name: .customShort("e"), help: "Lua statement run in each spec file's state before the spec; repeatable.")
    var statements: [String] = []

    @Option(name: [.customShort("r"), .customLong("run")], help: "The task to run from the .busted file.")
    var task: String?

    @Option(
        name: [.customShort("f"), .customLong("config-file")], help: "Read options from this file instead of ./.busted."
    )
    var configFile: String?

    @Option(name: [.customShort("C"), .customLong("directory")], help: "Change to this folder before running tests.")
    var directory: String?

    @Option(name: .customLong("repeat"), help: "Run the tests this many times.")
    var repeatCount: Int?

    /// The seed of the shuffled order a worker uses (the parent resolves it: `--seed`, the
    /// `.busted` file's `seed`, else the clock).
    @Option(name: .customLong("shuffle-seed"), help: .hidden)
    var shuffleSeed: Int64?

    @Flag(inversion: .prefixedNo, help: "Randomize file and test order (--shuffle-files and --shuffle-tests).")
    var shuffle: Bool?

    @Flag(name: .customLong("shuffle-files"), inversion: .prefixedNo, help: "Randomize the order of files.")
    var shuffleFiles: Bool?

    @Flag(
        name: .customLong("shuffle-tests"), inversion: .prefixedNo,
        help: "Randomize the order of tests within each file.")
    var shuffleTests: Bool?

    @Flag(inversion: .prefixedNo, help: "Sort files and tests by name (--sort-files and --sort-tests).")
    var sort: Bool?

    @Flag(name: .customLong("sort-files"), inversion: .prefixedNo, help: "Sort the order of files (the default).")
    var sortFiles: Bool?

    @Flag(name: .customLong("sort-tests"), inversion: .prefixedNo, help: "Sort tests within each block by name.")
    var sortTests: Bool?

    @Flag(
        name: [.customShort("l"), .customLong("list")],
        help: "List the tests (file:line: name) instead of running them.")
    var list = false

    @Flag(
        name: [.customShort("k"), .customLong("keep-going")], inversion: .prefixedNo,
        help: "Continue after a failure or error (default); --no-keep-going stops at the first.")
    var keepGoing: Bool?

    @Flag(name: .customLong("exit-on-failure"), help: "Stop at the first failure or error (--no-keep-going).")
    var exitOnFailure = false

    @Flag(inversion: .prefixedNo, help: "setup/teardown are lazy (run only when the block has tests).")
    var lazy: Bool?

    @Flag(name: .customLong("suppress-pending"), inversion: .prefixedNo, help: "Do not report pending tests.")
    var suppressPending: Bool?

    @Flag(
        name: [.customShort("v"), .customLong("verbose")], inversion: .prefixedNo,
        help: "Accepted for busted compatibility (tracebacks are always shown).")
    var verbose: Bool?

    @Option(help: "Language of messages: accepted; messages are in English ('en'), the only language here.")
    var lang: String?

    @Flag(
        name: [.customShort("R"), .customLong("recursive")], inversion: .prefixedNo,
        help: "Search folders' subfolders for spec files (the default); --no-recursive: only the folders given.")
    var recursive: Bool?

    /// busted's `-c`: the same as `--coverage` (recorded by the sandbox itself: no LuaCov needed).
    @Flag(name: .customShort("c"), help: "The same as --coverage.")
    var coverageShort = false

    @Flag(name: .customLong("no-coverage"), help: "Do not record coverage (busted's default).")
    var noCoverage = false

    // Accepted for busted compatibility and ignored: each file always runs in its own state
    // (auto-insulate), print is never deferred, no sound, only Lua files are loaded and the
    // interpreter is the sandbox's own.
    @Flag(
        name: .customLong("auto-insulate"), inversion: .prefixedNo,
        help: "Accepted; each file always runs in its own Lua state.")
    var autoInsulate: Bool?

    @Flag(name: .customLong("defer-print"), inversion: .prefixedNo, help: "Accepted for busted compatibility; ignored.")
    var deferPrint: Bool?

    @Flag(
        name: [.customShort("s"), .customLong("enable-sound")], inversion: .prefixedNo,
        help: "Accepted for busted compatibility; ignored.")
    var enableSound: Bool?

    @Option(name: .customLong("loaders"), help: "Accepted for busted compatibility; only Lua files are loaded.")
    var loaders: [String] = []

    @Flag(name: .customLong("ignore-lua"), help: "Accepted for busted compatibility; ignored.")
    var ignoreLua = false

    @Option(
        name: .customLong("lua"), help: "Accepted for busted compatibility; the sandbox's own Lua 5.4 runs the tests.")
    var lua: String?

    @Option(name: .customLong("Xoutput", withSingleDash: true), help: "Accepted for busted compatibility; ignored.")
    var outputOptions: [String] = []

    @Option(name: .customLong("Xhelper", withSingleDash: true), help: "Accepted for busted compatibility; ignored.")
    var helperOptions: [String] = []

    @Option(
        name: .customLong("coverage-config-file"),
        help: "Accepted for busted compatibility (LuaCov's settings); ignored.")
    var coverageConfigFile: String?

    /// The values given, without ArgumentParser's wrappers.
    var settings: BustedSettings {
        BustedSettings(
            pattern: pattern, excludePattern: excludePattern, tags: tags, excludeTags: excludeTags,
            filterOut: filterOut, lpath: lpath, helper: helper, statements: statements, task: task,
            configFile: configFile, directory: directory, repeatCount: repeatCount, shuffleSeed: shuffleSeed,
            shuffle: shuffle, shuffleFiles: shuffleFiles, shuffleTests: shuffleTests, sort: sort,
            sortTests: sortTests, list: list, keepGoing: keepGoing, exitOnFailure: exitOnFailure, lazy: lazy,
            suppressPending: suppressPending, recursive: recursive,
            coverage: noCoverage ? false : (coverageShort ? true : nil))
    }

    /// Rejects values out of range; `TestCommand.validate()` calls it (see ``SandboxFlags/check()``).
    func check() throws {
        if let repeatCount, repeatCount < 1 { throw ValidationError("--repeat must be at least 1") }
        // busted accepts its languages; the verdicts do not depend on them: warn, do not refuse
        // (found by an acceptance probe)
        if let lang, lang != "en" {
            Stderr.write("warning: --lang \(lang): messages are in English, the only language here\n")
        }
    }
}

/// The values of ``BustedFlags`` a run reads (the others are accepted and ignored), each at the
/// same default: nil where a `.busted` file's value may apply.
struct BustedSettings: Equatable {
    var pattern: [String] = []
    var excludePattern: [String] = []
    var tags: [String] = []
    var excludeTags: [String] = []
    var filterOut: [String] = []
    var lpath: [String] = []
    var helper: String?
    var statements: [String] = []
    var task: String?
    var configFile: String?
    var directory: String?
    var repeatCount: Int?
    var shuffleSeed: Int64?
    var shuffle: Bool?
    var shuffleFiles: Bool?
    var shuffleTests: Bool?
    var sort: Bool?
    var sortTests: Bool?
    var list = false
    var keepGoing: Bool?
    var exitOnFailure = false
    var lazy: Bool?
    var suppressPending: Bool?
    /// busted's `-R/--[no-]recursive` (nil: the `.busted` file's, else on).
    var recursive: Bool?
    /// busted's `-c` (true) or `--no-coverage` (false, whatever else was given); nil: `--coverage`
    /// decides. (A `.busted` file's `coverage` is not read: in busted it asks for LuaCov.)
    var coverage: Bool?
}
