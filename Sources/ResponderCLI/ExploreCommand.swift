import ArgumentParser
import ResponderExplore
import ResponderLua
import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `responder explore FILE.lua`: drives the mounted tree with seeded random actions, checks
/// after each one, shrinks the first failure to a minimal spec (SPEC §3.5).
struct ExploreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Drive a scenario with seeded random actions; shrink any failure to a spec.",
        discussion: ExitStatusHelp.discussion(
            """
            Each run re-runs the script in a fresh state (its output muted), then performs --steps \
            random actions among those the mounted tree offers at that moment: taps, text entry, \
            toggles, sliders, steppers, segments, clock advances and the script's own \
            explore.action()s. After each action it checks that no LuaError was reported, no safety \
            violation occurred, no limit was hit and every explore.invariant() holds. The first \
            failure is shrunk to a minimal sequence and written as explore-<seed>_spec.lua in \
            --output; the exit status is then 1. The same --seed gives the same actions everywhere.
            """)
    )

    @Argument(help: "The scenario script.")
    var file: String

    @Option(help: "Runs (fresh states) to make.")
    var runs: Int = 100

    @Option(help: "Actions per run.")
    var steps: Int = 50

    @Option(help: "Seed (default: a random one, printed).")
    var seed: UInt64?

    @Option(help: "Run only shard K of N (run r, numbered from 1 as printed, goes to shard (r - 1) mod N + 1).")
    var shard: String?

    @OptionGroup var sandbox: SandboxFlags

    @Option(help: "Folder for the spec of a failure (. is the current folder).")
    var output: String = "."

    @Option(help: "Report format: pretty or json.")
    var format: String = "pretty"

    /// The most runs and actions per run `explore` accepts.
    static let maximumRuns = 10_000_000
    static let maximumSteps = 100_000

    func validate() throws {
        try sandbox.check()
        // (each run's actions are kept for shrinking and replay, outside the script's memory cap:
        // bounded here; a run that wants more is a scenario, not an exploration)
        if runs < 1 || runs > ExploreCommand.maximumRuns {
            throw ValidationError("--runs must be between 1 and \(ExploreCommand.maximumRuns) (got \(runs))")
        }
        if steps < 1 || steps > ExploreCommand.maximumSteps {
            throw ValidationError("--steps must be between 1 and \(ExploreCommand.maximumSteps) (got \(steps))")
        }
        if !["pretty", "json"].contains(format) {
            throw ValidationError("--format must be pretty or json (got '\(format)')")
        }
        if let shard, Shard.parse(shard) == nil {
            throw ValidationError("--shard must be K/N with 1 <= K <= N (got '\(shard)')")
        }
    }

    func run() throws {
        try ScriptFile.check(file, command: "explore")
        var options = ExploreOptions(script: file)
        options.runs = runs
        options.steps = steps
        options.seed = seed ?? ExploreCommand.randomSeed()
        if let shard, let (k, n) = Shard.parse(shard) { options.shard = (k, n) }
        // --timeout (from the sandbox options): seconds each run may take (the runtime's wall-clock
        // limit, 60 s when not given; the explorer also checks it between actions)
        options.timeout = sandbox.timeout
        options.safety = sandbox.safety
        options.limits = sandbox.settings.limits
        options.outputDirectory = output

        let explorer = Explorer(options: options)
        let pretty = format == "pretty"
        let terminal = Console.isTerminal(1)
        if pretty {
            Console.out("explore \(file): seed \(options.seed), \(explorer.plannedRunCount) runs × \(steps) steps\n")
            Console.flush()
        }
        let started = Explorer.now()
        var lastDraw = 0.0
        if pretty && terminal {
            explorer.progress = { done, planned, actions in
                let now = Explorer.now()
                guard now - lastDraw > 0.1 || done == planned else { return }
                lastDraw = now
                let rate = Int(Double(actions) / max(now - started, 1e-9))
                Console.out("\r\u{1B}[K[run \(done)/\(planned)] \(actions) actions, \(rate) actions/s, 0 failures")
                Console.flush()
            }
        }
        var result = explorer.explore()
        if pretty && terminal { Console.out("\r\u{1B}[K") }

        if var finding = result.finding, !finding.flaky, !finding.minimal.isEmpty {
            writeSpec(&finding, seed: options.seed, replay: options.replayCommand)
            result.finding = finding
        }
        if pretty {
            Console.out(ExploreReport.pretty(result, replay: options.replayCommand))
        } else {
            Console.out(ExploreReport.json(result, script: file, seed: options.seed))
        }
        Console.flush()
        throw ExitCode(result.finding == nil ? 0 : 1)
    }

    /// Writes the spec and runs it once (`responder test SPEC`), which must fail.
    private func writeSpec(_ finding: inout ExploreFinding, seed: UInt64, replay: String) {
        guard CoverageOptions.makeParent(of: output + "/x") else {
            Stderr.write("error: cannot create the folder '\(output)': \(String(cString: strerror(errno)))\n")
            return
        }
        let path =
            (output == "." ? "" : (output.hasSuffix("/") ? output : output + "/")) + ExploreSpec.fileName(seed: seed)
        let text = ExploreSpec.text(
            finding, script: file, scenarioPath: ExploreSpec.relativePath(file, from: output), seed: seed,
            replay: replay, safety: sandbox.safety)
        // (as snapshots: never through a symbolic link, never over a file that is not a spec
        // this command wrote)
        if let failure = FileText.writeGuarded(Array(text.utf8), to: path, header: ExploreSpec.header) {
            Stderr.write("error: cannot write the spec to '\(path)': \(failure)\n")
            return
        }
        finding.specPath = path
        finding.specText = text
        let exe = TestProcess.executablePath()
        if let out = TestProcess.run(exe, ["test", path, "--safety", sandbox.safety, "--jobs", "1"]) {
            finding.specVerified = out.status == 1 || out.status == 3  // a failed test, or a limit
        }
    }

    static func randomSeed() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let mixed = ExploreRandom.mix(UInt64(ts.tv_sec), Int(ts.tv_nsec) ^ Int(getpid()))
        return mixed % 1_000_000_000
    }
}
