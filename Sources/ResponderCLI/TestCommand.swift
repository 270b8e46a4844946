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
        discussion: """
        Folders are searched recursively for *_spec.lua (folders starting with '.' or '_' are \
        skipped unless named explicitly); a file named explicitly that is not *_spec.lua runs as \
        a plain script: one test that passes when the script ends without error. Each file runs \
        in a fresh Lua state in an isolated worker process; each `it` in a fresh world \
        (responder.reset()). --filter is a Lua pattern matched against full test names \
        ("describe path it-name"); a filter that is not a valid pattern matches as plain text. \
        The run ends with 'N passed, N failed, N skipped' on stdout (on stderr when a machine \
        format is written to stdout); the exit status is 1 when any test failed.
        """
    )

    @Argument(help: "Spec files, folders or plain scripts (default: the current folder).")
    var paths: [String] = []

    @Option(help: "Run only tests whose full name matches this Lua pattern (or plain text).")
    var filter: String?

    @Option(help: "Worker processes to run files in parallel (default: the number of cores).")
    var jobs: Int?

    @Option(help: "Report format: pretty, tap, junit or json.")
    var format: String = "pretty"

    @Option(help: "Write the report to this file (the summary line still goes to stdout).")
    var output: String?

    @Option(help: "Run only shard K of N (files split by sorted position: file i goes to shard i mod N + 1).")
    var shard: String?

    @Flag(name: .customLong("update-snapshots"), help: "Rewrite snapshots that do not match.")
    var updateSnapshots = false

    @OptionGroup var safetyOption: SafetyOption

    @OptionGroup var limitOptions: LimitOptions

    @OptionGroup var coverageOptions: CoverageOptions

    @Flag(help: .hidden)
    var worker = false

    func validate() throws {
        try safetyOption.check()
        try coverageOptions.check()
        if !["pretty", "tap", "junit", "json"].contains(format) {
            throw ValidationError("--format must be pretty, tap, junit or json (got '\(format)')")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let shard, parseShard(shard) == nil {
            throw ValidationError("--shard must be K/N with 1 <= K <= N (got '\(shard)')")
        }
    }

    func parseShard(_ s: String) -> (Int, Int)? {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else { return nil }
        return (k, n)
    }

    var runOptions: TestRunOptions {
        var options = TestRunOptions(limits: limitOptions.limits, safety: safetyOption.safety, filter: filter,
                                     updateSnapshots: updateSnapshots)
        options.coverage = coverageOptions.coverage
        return options
    }

    func run() throws {
        if worker { TestWorker.run(options: runOptions) }

        var files: [TestFile]
        do {
            files = try TestDiscovery.discover(paths.isEmpty ? ["."] : paths)
        } catch {
            if case .missing(let p) = error {
                Stderr.write("error: cannot open '\(p)': no such file or folder\nhint: give spec files or folders; see 'responder test --help'\n")
            }
            throw ExitCode(2)
        }
        if let shard, let (k, n) = parseShard(shard) {
            files = TestDiscovery.shard(files, k: k, n: n)
        }

        let toStdout = output == nil
        let pretty = format == "pretty"
        let live = pretty && toStdout
        let terminal = Console.isTerminal(1)
        let noColor = getenv("NO_COLOR").map { String(cString: $0).isEmpty == false } ?? false
        let style = TestReport.Style(colour: live && terminal && !noColor)
        let progress = live && terminal && files.count >= 20

        var workerArgs = ["--safety", safetyOption.safety] + limitOptions.arguments
        if let filter { workerArgs.append("--filter=" + filter) }
        if updateSnapshots { workerArgs.append("--update-snapshots") }
        if coverageOptions.coverage { workerArgs.append("--coverage") }
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let pool = TestWorkerPool(jobs: jobs ?? max(1, cores), workerArguments: workerArgs,
                                  stdoutToStderr: !pretty && toStdout,
                                  timeoutSeconds: limitOptions.limits.timeoutSeconds ?? LuaLimits.defaultTimeoutSeconds)

        let start = TestFramework.now()
        var perFile = [[TestRecord]](repeating: [], count: files.count)
        var running = TestSummary()
        var filesDone = 0
        var coverageData = CoverageData()
        pool.run(files, record: { index, record in
            perFile[index].append(record)
            running.add(record)
            if live && !progress { Console.out(TestReport.mark(record, style)) }
        }, done: { _ in
            filesDone += 1
            if progress {
                Console.out("\r\u{1B}[K[\(filesDone)/\(files.count) files] \(running.line)")
            }
            if live { Console.flush() }
        }, coverage: { line in
            coverageData.addWireLine(line)
        })
        let duration = TestFramework.now() - start
        if progress { Console.out("\r\u{1B}[K") }
        let records = perFile.flatMap { $0 }
        var summary = TestSummary()
        for r in records { summary.add(r) }

        let report: String
        switch format {
        case "tap": report = TestReport.tap(records)
        case "junit": report = TestReport.junit(records, files: files.map(\.path), duration: duration)
        case "json": report = TestReport.json(records, duration: duration)
        default:
            let st = toStdout ? style : TestReport.Style(colour: false)
            report = (live && !progress && !records.isEmpty ? "\n" : "") + TestReport.pretty(records, st, duration: duration)
        }
        if let output {
            if !FileText.write(report, to: output) {
                Stderr.write("error: cannot write the report to '\(output)': \(String(cString: strerror(errno)))\n")
                throw ExitCode(2)
            }
            Console.out(summary.line + "\n")
        } else if pretty {
            Console.out(report)
            Console.out(summary.line + "\n")
        } else {
            Console.out(report)
            Console.flush()
            Stderr.write(summary.line + "\n")
        }
        Console.flush()
        var coverageFailed = false
        if coverageOptions.coverage {
            if let text = coverageOptions.write(coverageData) {
                if pretty && toStdout { Console.out(text); Console.flush() } else { Stderr.write(text) }
            } else {
                coverageFailed = true
            }
        }
        if files.isEmpty {
            Stderr.write("warning: no test files found (looked for *_spec.lua under \((paths.isEmpty ? ["."] : paths).joined(separator: ", ")))\n")
        }
        throw ExitCode(summary.anyFailure ? 1 : coverageFailed ? 2 : 0)
    }
}
