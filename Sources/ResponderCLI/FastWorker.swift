import ResponderTesting

/// A fast path for the worker processes `responder test` starts (`responder test --worker …`):
/// their arguments are the ones ``TestCommand`` writes for them (`TestCommand.resolve()`), read
/// back by hand into the options ``TestCommand/workerOptions`` would give. The general parser's
/// start-up (about 25 M instructions for `test`'s many options) is then paid once per run, not
/// once more per worker. Anything else (an unknown option, a bad number, a missing value)
/// returns nil and goes through ArgumentParser as before.
struct FastWorker {
    static func parse(_ args: [String]) -> TestRunOptions? {
        guard args.count >= 2, args[0] == "test", args[1] == "--worker" else { return nil }
        var settings = ScenarioSettings()
        var filters: [String] = []
        var filterOut: [String] = []
        var tags: [String] = []
        var excludeTags: [String] = []
        var lpath: [String] = []
        var statements: [String] = []
        var helper: String?
        var shuffleSeed: Int64?
        var repeatCount: Int?
        var flags = Set<String>()
        var i = 2
        func value() -> String? {
            guard i + 1 < args.count else { return nil }
            i += 1
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                let name = String(a[..<eq])
                let text = String(a[a.index(after: eq)...])
                switch name {
                case "--filter": filters.append(text)
                case "--filter-out": filterOut.append(text)
                case "--tags": tags += text.split(separator: ",").map(String.init)
                case "--exclude-tags": excludeTags += text.split(separator: ",").map(String.init)
                case "--lpath": lpath.append(text)
                case "--helper": helper = text
                default: return nil
                }
            } else {
                switch a {
                case "--safety", "--seed", "--max-instructions", "--max-memory", "--timeout":
                    guard let v = value(), settings.set(a, v) else { return nil }
                case "--shuffle-seed":
                    guard let v = value(), let n = Int64(v) else { return nil }
                    shuffleSeed = n
                case "--repeat":
                    guard let v = value(), let n = Int(v), n >= 1 else { return nil }
                    repeatCount = n
                case "-e":
                    guard let v = value() else { return nil }
                    statements.append(v)
                case "--shuffle-tests", "--sort-tests", "--list", "--lazy", "--suppress-pending", "--no-keep-going",
                    "--update-snapshots", "--coverage":
                    flags.insert(a)
                default:
                    return nil
                }
            }
            i += 1
        }
        guard settings.problem == nil else { return nil }
        var run = TestRunOptions(
            limits: settings.limits, safety: settings.safety,
            filter: nil, updateSnapshots: flags.contains("--update-snapshots"), seed: settings.seed)
        run.filters = filters
        run.coverage = flags.contains("--coverage")
        run.filterOut = filterOut
        run.tags = tags
        run.excludeTags = excludeTags
        run.shuffleTests = flags.contains("--shuffle-tests")
        run.sortTests = flags.contains("--sort-tests")
        run.shuffleSeed = shuffleSeed ?? settings.seed ?? 0
        run.repeatCount = repeatCount ?? 1
        run.list = flags.contains("--list")
        run.lazySetup = flags.contains("--lazy")
        run.suppressPending = flags.contains("--suppress-pending")
        run.keepGoing = !flags.contains("--no-keep-going")
        run.modulePaths = lpath
        run.helper = helper
        run.statements = statements
        return run
    }
}
