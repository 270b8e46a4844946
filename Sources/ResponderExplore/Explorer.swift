import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Settings of `responder explore` (SPEC §3.5).
package struct ExploreOptions: Sendable {
    package var script: String
    package var runs = 100
    package var steps = 50
    package var seed: UInt64 = 0
    /// Shard K of N (1-based): runs r with r mod N == K - 1.
    package var shard: (k: Int, n: Int) = (1, 1)
    /// Seconds each run may take (nil: no limit besides the sandbox's).
    package var timeout: Double?
    package var safety = "relaxed"
    package var limits: LuaLimits = .defaults
    /// Where the spec of a failure goes.
    package var outputDirectory = "."
    /// Shrinking budget.
    package var maxReplays = 5_000
    package var maxShrinkSeconds = 10.0

    package init(script: String) { self.script = script }

    /// The command line that explores the same way again: the seed and every option that
    /// changes what is found (runs, steps, shard, safety, limits) when it is not the default.
    package var replayCommand: String {
        var words = ["responder", "explore", ExploreOptions.shellWord(script), "--seed", String(seed)]
        if runs != 100 { words += ["--runs", String(runs)] }
        if steps != 50 { words += ["--steps", String(steps)] }
        if shard.n != 1 { words += ["--shard", "\(shard.k)/\(shard.n)"] }
        if safety != "relaxed" { words += ["--safety", safety] }
        if let t = timeout { words += ["--timeout", t == t.rounded() ? String(Int(t)) : String(t)] }
        if limits.exactInstructions, let n = limits.maxInstructions { words += ["--max-instructions", String(n)] }
        if let mib = limits.maxMemoryMiB, mib != LuaLimits.defaults.maxMemoryMiB {
            words += ["--max-memory", String(mib)]
        }
        return words.joined(separator: " ")
    }

    /// `word` as a shell reads it back: as it is when it holds only safe characters, else in
    /// single quotes.
    static func shellWord(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                || "/._-+:=@,%".unicodeScalars.contains($0)
        }
        if safe && !word.isEmpty { return word }
        var quoted = "'"
        for ch in word { quoted += ch == "'" ? "'\\''" : String(ch) }
        return quoted + "'"
    }
}

/// A failure found, shrunk and written as a spec.
package struct ExploreFinding: Sendable {
    package var run: Int
    /// 1-based step of the run at which it failed (0: the script failed before any action).
    package var step: Int
    /// The seed of that run (the script's `math.random` seed too).
    package var runSeed: Int64
    package var failure: ExploreFailure
    /// The actions of the run up to the failing one.
    package var original: [ExploreAction]
    /// The minimal sequence.
    package var minimal: [ExploreAction]
    /// The failure as the minimal sequence produces it (its trace is the failing step's).
    package var minimalFailure: ExploreFailure
    package var replays: Int
    package var shrinkSeconds: Double
    /// The first replay did not fail the same way: not shrunk, no spec.
    package var flaky: Bool
    package var specPath: String?
    package var specText: String?
    /// Whether the written spec failed when run once (nil: not checked).
    package var specVerified: Bool?
}

/// What an exploration did.
package struct ExploreResult: Sendable {
    package var runs = 0
    package var actions = 0
    package var distinctActions = 0
    package var seconds = 0.0
    package var finding: ExploreFinding?
    package var coverage = CoverageData()
    package var actionsPerSecond: Double { seconds > 0 ? Double(actions) / seconds : 0 }
}

/// Runs explorations: fresh state per run, seeded random actions among those the tree offers,
/// checks after each, shrinking of the first failure.
package final class Explorer {
    package let options: ExploreOptions
    /// Called after each run with (runs done, runs planned, actions so far).
    package var progress: ((Int, Int, Int) -> Void)?

    package init(options: ExploreOptions) { self.options = options }

    /// Monotonic seconds.
    package static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private func scenarioOptions(seed: Int64) -> ScenarioOptions {
        var o = ScenarioOptions(limits: options.limits, seed: seed, safety: options.safety, trace: false)
        o.coverage = .responders
        return o
    }

    /// The run indices of this shard.
    package var plannedRuns: StrideTo<Int> {
        stride(from: options.shard.k - 1, to: options.runs, by: options.shard.n)
    }

    /// How many runs this shard makes.
    package var plannedRunCount: Int {
        options.runs >= options.shard.k ? (options.runs - options.shard.k) / options.shard.n + 1 : 0
    }

    /// Explores; stops at the first failure, which is shrunk and written as a spec.
    package func explore() -> ExploreResult {
        var result = ExploreResult()
        var distinct = Set<String>()
        let start = Explorer.now()
        let planned = plannedRuns
        for (done, run) in planned.enumerated() {
            let outcome = runOnce(run)
            result.runs += 1
            result.actions += outcome.actions.count
            for a in outcome.actions { distinct.insert(a.label) }
            if let c = outcome.coverage { result.coverage.merge(c) }
            if let failure = outcome.failure {
                result.seconds = Explorer.now() - start
                result.distinctActions = distinct.count
                result.finding = shrink(run: run, actions: outcome.actions, failure: failure)
                return result
            }
            progress?(done + 1, plannedRunCount, result.actions)
        }
        result.seconds = Explorer.now() - start
        result.distinctActions = distinct.count
        return result
    }

    package struct RunOutcome {
        var actions: [ExploreAction]
        var failure: ExploreFailure?
        var coverage: CoverageData?
    }

    /// One run with random actions.
    package func runOnce(_ run: Int) -> RunOutcome {
        let runSeed = Int64(bitPattern: ExploreRandom.mix(options.seed, run))
        let host: ExploreHost
        do {
            host = try ExploreHost(script: options.script, options: scenarioOptions(seed: runSeed))
        } catch {
            let kind: ExploreFailure.Kind = error.isLimit ? .limit : .error
            return RunOutcome(
                actions: [],
                failure: ExploreFailure(
                    kind: kind, identity: ExploreFailure.identity(ofMessage: error.message),
                    message: error.message))
        }
        var random = ExploreRandom(seed: UInt64(bitPattern: runSeed) ^ 0x2545_F491_4F6C_DD1D)
        var enabled: [String: Bool] = [:]
        var actions: [ExploreAction] = []
        actions.reserveCapacity(min(options.steps, 256))
        let deadline = options.timeout.map { Explorer.now() + $0 }
        // the state the script left: a violation, LuaError or broken invariant before any action
        if let f = host.check() { return RunOutcome(actions: [], failure: f, coverage: host.coverage()) }
        for _ in 0..<options.steps {
            let offers = host.offers()
            if offers.isEmpty { break }
            // groups in order of first appearance; swarm: each group is left out of this run
            // with probability 1/4, decided when first seen (never all of those offered now)
            var groups: [(name: String, weight: Double, first: Int, count: Int)] = []
            for (i, o) in offers.enumerated() {
                if let g = groups.firstIndex(where: { $0.name == o.group }) {
                    groups[g].count += 1
                } else {
                    groups.append((o.group, weight(of: o, host), i, 1))
                }
            }
            for g in groups where enabled[g.name] == nil { enabled[g.name] = !random.chance(0.25) }
            var usable = groups.filter { enabled[$0.name] == true }
            if usable.isEmpty { usable = groups }
            let total = usable.reduce(0) { $0 + $1.weight }
            var pick = random.unit() * total
            var chosen = usable[usable.count - 1]
            for g in usable {
                if pick < g.weight {
                    chosen = g
                    break
                }
                pick -= g.weight
            }
            var k = random.below(chosen.count)
            var offer = offers[chosen.first]
            for o in offers[chosen.first...] where o.group == chosen.name {
                if k == 0 {
                    offer = o
                    break
                }
                k -= 1
            }
            let (action, failure) = host.perform(offer, random: &random)
            actions.append(action)
            if let f = failure ?? host.check() {
                return RunOutcome(actions: actions, failure: f, coverage: host.coverage())
            }
            if let deadline, Explorer.now() > deadline {
                return RunOutcome(
                    actions: actions,
                    failure: ExploreFailure(
                        kind: .limit, identity: "timeout",
                        message: "the run took longer than \(options.timeout!) s (--timeout)"),
                    coverage: host.coverage())
            }
        }
        return RunOutcome(actions: actions, failure: nil, coverage: host.coverage())
    }

    private func weight(of offer: ExploreHost.Offer, _ host: ExploreHost) -> Double {
        switch offer.kind {
        case .custom: return host.customActions[offer.detail - 1].weight
        case .advance, .cancelTask: return 0.5
        default: return 1
        }
    }

    /// Replays `actions` in a fresh state of run seed `runSeed`: the failure and the actions
    /// that ran up to it.
    func replay(_ actions: [ExploreAction], runSeed: Int64) -> (ExploreFailure?, [ExploreAction]) {
        let host: ExploreHost
        do {
            host = try ExploreHost(script: options.script, options: scenarioOptions(seed: runSeed))
        } catch {
            return (
                ExploreFailure(
                    kind: error.isLimit ? .limit : .error, identity: ExploreFailure.identity(ofMessage: error.message),
                    message: error.message), []
            )
        }
        var ran: [ExploreAction] = []
        if let f = host.check() { return (f, ran) }
        for a in actions {
            let (performed, failure) = host.perform(a)
            guard performed else { continue }
            ran.append(a)
            if let f = failure ?? host.check() { return (f, ran) }
        }
        return (nil, ran)
    }

    /// Checks the failure reproduces, shrinks it, writes the spec.
    package func shrink(run: Int, actions: [ExploreAction], failure: ExploreFailure) -> ExploreFinding {
        let runSeed = Int64(bitPattern: ExploreRandom.mix(options.seed, run))
        var finding = ExploreFinding(
            run: run, step: actions.count, runSeed: runSeed, failure: failure, original: actions,
            minimal: actions, minimalFailure: failure, replays: 0, shrinkSeconds: 0, flaky: false)
        if actions.isEmpty { return finding }  // the script itself failed: nothing to shrink
        let start = Explorer.now()
        let (again, _) = replay(actions, runSeed: runSeed)
        finding.replays = 1
        guard let again, again.sameAs(failure) else {
            finding.flaky = true
            finding.minimalFailure = again ?? failure
            finding.shrinkSeconds = Explorer.now() - start
            return finding
        }
        var shrinker = Shrinker<ExploreAction>(
            maxReplays: options.maxReplays, maxSeconds: options.maxShrinkSeconds,
            clock: Explorer.now)
        var lastFailure = again
        let minimal = shrinker.shrink(actions, simplifications: Explorer.simplifications) { candidate in
            let (f, ran) = replay(candidate, runSeed: runSeed)
            guard let f, f.sameAs(failure) else { return nil }
            lastFailure = f
            return ran
        }
        // the failing step's trace, as the minimal sequence produces it
        let (final, ran) = replay(minimal, runSeed: runSeed)
        finding.minimal = ran.isEmpty ? minimal : ran
        finding.minimalFailure = final ?? lastFailure
        finding.replays = 1 + shrinker.replays + 1
        finding.shrinkSeconds = Explorer.now() - start
        return finding
    }

    /// Simpler variants of an action, simplest first.
    static func simplifications(_ a: ExploreAction) -> [ExploreAction] {
        var out: [ExploreAction] = []
        func with(_ change: (inout ExploreAction) -> Void) {
            var b = a
            change(&b)
            if b != a { out.append(b) }
        }
        switch a.kind {
        case .typeText:
            let text = a.text ?? ""
            if !text.isEmpty && !a.textFromInputs {
                with { $0.text = "" }
                if text.count > 1 { with { $0.text = String(text.prefix(text.count / 2)) } }
                if text != "a" { with { $0.text = "a" } }
            }
        case .slide:
            if let v = a.number, v != 0 {
                with { $0.number = 0 }
                if v != v.rounded() { with { $0.number = v.rounded() } }
            }
        case .advance:
            if let v = a.number, v > 0.1 {
                with { $0.number = 0.1 }
                with { $0.number = 1 }
            }
        case .tap:
            if a.number != nil { with { $0.number = nil } }
        case .selectSegment, .cancelTask:
            if let v = a.number, v > 1 { with { $0.number = 1 } }
        case .custom:
            for (i, d) in a.draws.enumerated() {
                switch d {
                case .int(let v) where v > 1:
                    with { $0.draws[i] = .int(1) }
                    with { $0.draws[i] = .int(v / 2) }
                case .text(let s) where !s.isEmpty:
                    with { $0.draws[i] = .text("") }
                default: break
                }
            }
        default:
            break
        }
        return out
    }
}
