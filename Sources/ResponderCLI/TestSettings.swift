import ArgumentParser
import ResponderLua
import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// What `responder test` is asked to do: the values of ``TestCommand``'s options without
/// ArgumentParser's wrappers, so that ``FastTest`` can fill them by hand for the most common
/// command lines (`responder test [PATH…]`), and the run itself.
struct TestSettings: Equatable {
    var paths: [String] = []
    var filter: [String] = []
    var jobs: Int?
    var format: String?
    var outputFile: String?
    var handler: String?
    var shard: String?
    var updateSnapshots = false
    var busted = BustedSettings()
    var scenario = ScenarioSettings()
    var coverageOptions = CoverageSettings()
}

extension TestSettings {
    /// busted's `--lpath` when none is given.
    static let bustedDefaultLpath = ["./src/?.lua", "./src/?/?.lua", "./src/?/init.lua"]
    /// Where `require` looks last: the working folder, as Lua's default path does.
    static let workingFolderPath = ["./?.lua", "./?/init.lua"]

    /// The options after the `.busted` file: command line first, then the task, then `_all`.
    struct Resolved {
        var paths: [String]
        var format: String
        var colour: Bool
        /// busted's `plainTerminal`: ASCII marks.
        var plain: Bool
        /// busted's output handler when `-o` (or the `.busted` file's `output`) chose the format:
        /// its report then is busted's (``BustedReport``).
        var bustedHandler: String?
        var patterns: [String]
        var excludePatterns: [String]
        var run: TestRunOptions
        var shuffleFiles: Bool
        /// busted's `--[no-]recursive` (or the `.busted` file's `recursive`).
        var recursive = true
        var workerArguments: [String]
    }

    func resolve() throws -> Resolved {
        var config: [String: BustedConfig.Value] = [:]
        let configPath = busted.configFile ?? ".busted"
        if busted.configFile != nil || FileText.isFile(configPath) {
            do {
                config = try BustedConfig.load(
                    configPath, task: busted.task,
                    timeoutSeconds: scenario.limits.timeoutSeconds ?? LuaLimits.defaultTimeoutSeconds
                ).options
            } catch {
                Stderr.write("error: \(error.message)\n")
                throw ExitCode(error.isLimit ? 3 : 2)
            }
        } else if let task = busted.task {
            Stderr.write("error: Task `\(task)` not found: there is no .busted file\n")
            throw ExitCode(2)
        }
        func list(_ cli: [String], _ keys: String...) -> [String] {
            if !cli.isEmpty { return cli }
            for k in keys { if let v = config[k] { return v.strings } }
            return []
        }
        func text(_ cli: String?, _ keys: String...) -> String? {
            if let cli { return cli }
            for k in keys { if let v = config[k]?.text { return v } }
            return nil
        }
        func flag(_ cli: Bool?, _ keys: String...) -> Bool? {
            if let cli { return cli }
            for k in keys { if let v = config[k]?.flag { return v } }
            return nil
        }
        func commaList(_ values: [String]) -> [String] {
            values.flatMap { BustedConfig.Value.text($0).strings }
        }

        var roots = paths
        if roots.isEmpty, let r = config["ROOT"] { roots = r.strings }
        // SPEC §3: the current directory by default (busted's default ROOT is spec/; a `.busted`
        // file's ROOT or named paths choose it)
        if roots.isEmpty { roots = ["."] }

        var format = self.format ?? "pretty"
        var colour = true
        var plain = false
        var bustedHandler: String?
        if let h = text(handler, "output", "o") {
            if let f = TestCommand.handlers[h] {
                if self.format == nil || handler != nil {
                    format = f
                    bustedHandler = h
                }
                colour = h != "plainTerminal"
                plain = h == "plainTerminal"
            } else {
                Stderr.write("warning: output handler '\(h)' from \(configPath) is not available; using utfTerminal\n")
            }
        }

        // --seed, else the .busted file's: math.random's seed and the shuffled order's
        let givenSeed = scenario.seed ?? text(nil, "seed").flatMap { Int64($0) }
        var settings = scenario
        settings.seed = givenSeed
        var run = TestRunOptions(
            limits: settings.limits, safety: settings.safety,
            filter: nil, updateSnapshots: updateSnapshots, seed: givenSeed)
        run.coverage = coverageOptions.coverage
        run.filters = list(filter, "filter")
        run.filterOut = list(busted.filterOut, "filter-out")
        run.tags = commaList(list(busted.tags, "tags", "t"))
        run.excludeTags = commaList(list(busted.excludeTags, "exclude-tags"))
        for t in run.excludeTags where run.tags.contains(t) {
            Stderr.write("error: Cannot use --tags and --exclude-tags for the same tags\n")
            throw ExitCode(2)
        }
        let shuffleAll = flag(busted.shuffle, "shuffle")
        let sortAll = flag(busted.sort, "sort")
        run.shuffleTests = flag(busted.shuffleTests, "shuffle-tests") ?? shuffleAll ?? false
        run.sortTests = !run.shuffleTests && (flag(busted.sortTests, "sort-tests") ?? sortAll ?? false)
        run.shuffleSeed = givenSeed ?? Int64(TestFramework.now() * 1000) % 2_147_483_647
        run.repeatCount = busted.repeatCount ?? text(nil, "repeat").flatMap { Int($0) } ?? 1
        run.list = busted.list || (flag(nil, "list", "l") ?? false)
        run.lazySetup = flag(busted.lazy, "lazy") ?? false
        run.suppressPending = flag(busted.suppressPending, "suppress-pending") ?? false
        run.keepGoing = busted.exitOnFailure ? false : (flag(busted.keepGoing, "keep-going", "k") ?? true)
        // busted's default lpath when none is given, then the working folder, as busted's `lua`
        // finds modules there through Lua's default path (`./?.lua;./?/init.lua`)
        let lpath = list(busted.lpath, "lpath", "m").flatMap { $0.split(separator: ";").map(String.init) }
            .filter { !$0.isEmpty }
        run.modulePaths = (lpath.isEmpty ? Self.bustedDefaultLpath : lpath) + Self.workingFolderPath
        run.helper = text(busted.helper, "helper")
        run.statements = busted.statements.isEmpty ? list([], "e") : busted.statements

        var args =
            settings.arguments + ["--shuffle-seed", String(run.shuffleSeed), "--repeat", String(run.repeatCount)]
        for f in run.filters { args.append("--filter=" + f) }
        for f in run.filterOut { args.append("--filter-out=" + f) }
        if !run.tags.isEmpty { args.append("--tags=" + run.tags.joined(separator: ",")) }
        if !run.excludeTags.isEmpty { args.append("--exclude-tags=" + run.excludeTags.joined(separator: ",")) }
        if run.shuffleTests { args.append("--shuffle-tests") }
        if run.sortTests { args.append("--sort-tests") }
        if run.list { args.append("--list") }
        if run.lazySetup { args.append("--lazy") }
        if run.suppressPending { args.append("--suppress-pending") }
        if !run.keepGoing { args.append("--no-keep-going") }
        for p in run.modulePaths { args.append("--lpath=" + p) }
        if let h = run.helper { args.append("--helper=" + h) }
        for e in run.statements { args += ["-e", e] }
        if updateSnapshots { args.append("--update-snapshots") }
        if coverageOptions.coverage { args.append("--coverage") }

        return Resolved(
            paths: roots, format: format, colour: colour, plain: plain, bustedHandler: bustedHandler,
            patterns: list(busted.pattern, "pattern", "p"),
            excludePatterns: list(busted.excludePattern, "exclude-pattern"),
            run: run,
            shuffleFiles: flag(busted.shuffleFiles, "shuffle-files") ?? shuffleAll ?? false,
            recursive: flag(busted.recursive, "recursive", "R") ?? true,
            workerArguments: args)
    }

    /// Runs the files; throws the exit status.
    func execute() throws {
        if let directory = busted.directory, chdir(directory) != 0 {
            Stderr.write("error: cannot change to folder '\(directory)': \(String(cString: strerror(errno)))\n")
            throw ExitCode(2)
        }
        let resolved = try resolve()

        var selection = TestDiscovery.Selection(recursive: resolved.recursive)
        do {
            let seconds = scenario.limits.timeoutSeconds ?? LuaLimits.defaultTimeoutSeconds
            if !resolved.patterns.isEmpty {
                selection.pattern = try LuaPatternMatcher(resolved.patterns, timeoutSeconds: seconds)
            }
            if !resolved.excludePatterns.isEmpty {
                selection.exclude = try LuaPatternMatcher(resolved.excludePatterns, timeoutSeconds: seconds)
            }
        } catch {
            Stderr.write("error: --pattern: \(error.message)\n")
            throw ExitCode(2)
        }
        // a malformed test-name pattern is a usage error before anything runs (it selected no
        // test, or excluded none, and the run passed: found by an acceptance probe)
        for (option, patterns) in [("--filter", resolved.run.filters), ("--filter-out", resolved.run.filterOut)]
        where !patterns.isEmpty {
            do {
                _ = try LuaPatternMatcher(patterns)
            } catch {
                Stderr.write("error: \(option): \(error.message)\n")
                throw ExitCode(2)
            }
        }
        var files: [TestFile]
        do {
            files = try TestDiscovery.discover(resolved.paths, selection: selection)
        } catch {
            if case .missing(let p) = error {
                Stderr.write(
                    "error: cannot open '\(p)': no such file or folder\nhint: give spec files or folders; see 'responder test --help'\n"
                )
            }
            throw ExitCode(2)
        }
        let found = files.count
        if let shard, let (k, n) = Shard.parse(shard) {
            files = TestDiscovery.shard(files, k: k, n: n)
        }
        if resolved.shuffleFiles {
            var rng = SplitMix(seed: UInt64(bitPattern: resolved.run.shuffleSeed))
            files.shuffle(using: &rng)
        }

        let format = resolved.format
        let toStdout = outputFile == nil
        let pretty = format == "pretty"
        let listing = resolved.run.list
        // busted's handlers report each run of --repeat on its own, its marks included: the
        // marks then wait for the end (files run all their runs at once, on several workers)
        let runs = max(1, resolved.run.repeatCount)
        let perRun = resolved.bustedHandler != nil && runs > 1 && format != "junit"
        let interactive = pretty && toStdout && !listing
        let live = interactive && !perRun
        let terminal = Console.isTerminal(1)
        let noColor = getenv("NO_COLOR").map { String(cString: $0).isEmpty == false } ?? false
        let style = TestReport.Style(
            colour: interactive && terminal && !noColor && resolved.colour, plain: resolved.plain)
        let progress = live && terminal && files.count >= 20

        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        // busted's --no-keep-going stops at the first failure: files run one at a time then, so
        // that nothing after it runs or is reported (with several workers, files that finished
        // meanwhile were reported, a different number from run to run: found by an acceptance
        // probe)
        let pool = TestWorkerPool(
            jobs: resolved.run.keepGoing ? jobs ?? max(1, cores) : 1, workerArguments: resolved.workerArguments,
            stdoutToStderr: !pretty && toStdout && !listing,
            timeoutSeconds: scenario.limits.timeoutSeconds ?? LuaLimits.defaultTimeoutSeconds)

        let start = TestFramework.now()
        var perFile = [[TestRecord]](repeating: [], count: files.count)
        var running = TestSummary()
        var filesDone = 0
        var coverageData = CoverageData()
        let stopAtFailure = !resolved.run.keepGoing
        var lastProgress = 0.0
        var keptText = 0
        pool.run(
            files,
            record: { index, received in
                // (bounded: beyond a budget of kept text, long texts are cut short)
                var record = received
                keptText += record.textBytes
                if keptText > TestRecord.keptTextBudget { record.clipTexts(to: TestRecord.lateTextLimit) }
                perFile[index].append(record)
                running.add(record)
                if live && !progress && !(record.hook && resolved.bustedHandler != nil) {
                    Console.out(TestReport.mark(record, style))
                }
                // the progress line moves with each test, at most 20 times a second
                let now = TestFramework.now()
                if progress && now - lastProgress >= 0.05 {
                    lastProgress = now
                    Console.out("\r\u{1B}[K[\(filesDone)/\(files.count) files] \(running.line)")
                    Console.flush()
                }
            },
            done: { _ in
                filesDone += 1
                if progress {
                    Console.out("\r\u{1B}[K[\(filesDone)/\(files.count) files] \(running.line)")
                }
                if live { Console.flush() }
            },
            coverage: { line in
                coverageData.addWireLine(line)
            }, stop: { stopAtFailure && running.anyFailure }, lookahead: stopAtFailure ? 1 : 2)
        let duration = TestFramework.now() - start
        if progress { Console.out("\r\u{1B}[K") }
        if listing {
            Console.flush()
            // an error while the tree was walked (a describe block or the file raised): shown,
            // and the exit status is 1, as busted's
            let errors = perFile.flatMap { $0 }.filter { $0.status == .error }
            if !errors.isEmpty {
                Stderr.write(TestReport.pretty(errors, TestReport.Style(colour: false), duration: duration))
                // a sandbox limit that stopped a file: 3, as without --list (it was 1: found by
                // an adversary probe)
                var summary = TestSummary()
                for r in errors { summary.add(r) }
                throw ExitCode(summary.limits > 0 ? 3 : 1)
            }
            throw ExitCode(0)
        }
        let records = perFile.flatMap { $0 }
        var summary = TestSummary()
        for r in records { summary.add(r) }

        let report: String
        switch format {
        case _ where perRun:
            let st = toStdout ? style : TestReport.Style(colour: false, plain: resolved.plain)
            report = BustedReport.perRun(
                records, runs: runs, format: format, style: st, duration: duration)
        case "tap" where resolved.bustedHandler != nil: report = BustedReport.tap(records)
        case "tap": report = TestReport.tap(records)
        case "junit": report = TestReport.junit(records, files: files.map(\.path), duration: duration)
        case "json" where resolved.bustedHandler != nil: report = BustedReport.json(records, duration: duration)
        case "json": report = TestReport.json(records, duration: duration)
        default:
            let st = toStdout ? style : TestReport.Style(colour: false, plain: resolved.plain)
            if resolved.bustedHandler != nil {
                report = BustedReport.terminal(records, st, duration: duration)
            } else {
                report =
                    (live && !progress && !records.isEmpty ? "\n" : "")
                    + TestReport.pretty(records, st, duration: duration)
            }
        }
        // the coverage summary comes after the tests and before the final count line: the run
        // still ends with `N passed, N failed, N skipped` (SPEC §3)
        var coverageFailed = false
        var coverageText = ""
        if coverageOptions.coverage {
            if let text = coverageOptions.write(coverageData) { coverageText = text } else { coverageFailed = true }
        }
        if let outputFile {
            if !FileText.write(report, to: outputFile) {
                Stderr.write("error: cannot write the report to '\(outputFile)': \(String(cString: strerror(errno)))\n")
                throw ExitCode(2)
            }
            if !coverageText.isEmpty { Stderr.write(coverageText) }
            Console.out(summary.line + "\n")
        } else if pretty {
            Console.out(report)
            Console.out(coverageText)
            Console.out(summary.line + "\n")
        } else {
            Console.out(report)
            Console.flush()
            Stderr.write(coverageText + summary.line + "\n")
        }
        Console.flush()
        if files.isEmpty, found > 0, let shard {
            Stderr.write("warning: no test files in shard \(shard) (\(found) found, dealt to the other shards)\n")
        } else if files.isEmpty {
            Stderr.write(
                "warning: no test files found (looked for \(resolved.patterns.isEmpty ? "*_spec.lua" : "files matching " + resolved.patterns.joined(separator: ", ")) under \(resolved.paths.joined(separator: ", ")))\n"
            )
        }
        // a sandbox limit that stopped a spec file: 3, as for `run` (SPEC §3), before failures
        throw ExitCode(summary.limits > 0 ? 3 : summary.anyFailure ? 1 : coverageFailed ? 2 : 0)
    }
}
