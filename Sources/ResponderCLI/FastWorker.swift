import ResponderTesting

/// What a worker process of `responder test` is told on its command line (the arguments
/// `TestCommand.resolve()` writes for it), however it was read: by ArgumentParser
/// (``TestCommand/workerOptions``) or by hand (``FastWorker``). One place turns it into the
/// run options, so both readings give the same.
struct WorkerSettings {
    var settings = ScenarioSettings()
    var filters: [String] = []
    var filterOut: [String] = []
    /// `--tags` values as given (each may list several, comma-separated).
    var tags: [String] = []
    /// `--exclude-tags` values as given.
    var excludeTags: [String] = []
    var shuffleTests = false
    var sortTests = false
    var shuffleSeed: Int64?
    var repeatCount: Int?
    var list = false
    var lazySetup = false
    var suppressPending = false
    var keepGoing = true
    var modulePaths: [String] = []
    var helper: String?
    var statements: [String] = []
    var updateSnapshots = false
    var coverage = false

    /// The options the worker runs its files with.
    var options: TestRunOptions {
        var run = TestRunOptions(
            limits: settings.limits, safety: settings.safety,
            filter: nil, updateSnapshots: updateSnapshots, seed: settings.seed)
        run.filters = filters
        run.coverage = coverage
        run.filterOut = filterOut
        run.tags = tags.flatMap { $0.split(separator: ",").map(String.init) }
        run.excludeTags = excludeTags.flatMap { $0.split(separator: ",").map(String.init) }
        run.shuffleTests = shuffleTests
        run.sortTests = sortTests
        run.shuffleSeed = shuffleSeed ?? settings.seed ?? 0
        run.repeatCount = repeatCount ?? 1
        run.list = list
        run.lazySetup = lazySetup
        run.suppressPending = suppressPending
        run.keepGoing = keepGoing
        run.modulePaths = modulePaths
        run.helper = helper
        run.statements = statements
        return run
    }
}

/// A fast path for the worker processes `responder test` starts (`responder test --worker …`):
/// their arguments are the ones ``TestCommand`` writes for them, read back by hand into the
/// ``WorkerSettings`` ArgumentParser would give. The general parser's start-up (about 25 M
/// instructions for `test`'s many options) is then paid once per run, not once more per worker.
/// Anything else (an unknown option, a bad number, a missing value) returns nil and goes through
/// ArgumentParser as before.
struct FastWorker {
    static func parse(_ args: [String]) -> TestRunOptions? {
        guard args.count >= 2, args[0] == "test", args[1] == "--worker" else { return nil }
        var w = WorkerSettings()
        var i = 2
        func value() -> String? {
            guard i + 1 < args.count else { return nil }
            i += 1
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                let text = String(a[a.index(after: eq)...])
                switch a[..<eq] {
                case "--filter": w.filters.append(text)
                case "--filter-out": w.filterOut.append(text)
                case "--tags": w.tags.append(text)
                case "--exclude-tags": w.excludeTags.append(text)
                case "--lpath": w.modulePaths.append(text)
                case "--helper": w.helper = text
                default: return nil
                }
            } else {
                switch a {
                case "--safety", "--seed", "--max-instructions", "--max-memory", "--timeout":
                    guard let v = value(), w.settings.set(a, v) else { return nil }
                case "--shuffle-seed":
                    guard let v = value(), let n = Int64(v) else { return nil }
                    w.shuffleSeed = n
                case "--repeat":
                    guard let v = value(), let n = Int(v), n >= 1 else { return nil }
                    w.repeatCount = n
                case "-e":
                    guard let v = value() else { return nil }
                    w.statements.append(v)
                case "--shuffle-tests": w.shuffleTests = true
                case "--sort-tests": w.sortTests = true
                case "--list": w.list = true
                case "--lazy": w.lazySetup = true
                case "--suppress-pending": w.suppressPending = true
                case "--no-keep-going": w.keepGoing = false
                case "--update-snapshots": w.updateSnapshots = true
                case "--coverage": w.coverage = true
                default: return nil
                }
            }
            i += 1
        }
        guard w.settings.problem == nil else { return nil }
        return w.options
    }
}
