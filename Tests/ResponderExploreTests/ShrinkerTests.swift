import ResponderLua
import Testing

@testable import ResponderExplore

/// A failure that needs `a`, then `b`, then `c` (in that order, anything between).
private func needsABC(_ s: [Character]) -> [Character]? {
    var want: [Character] = ["a", "b", "c"]
    for (i, ch) in s.enumerated() where ch == want.first {
        want.removeFirst()
        if want.isEmpty { return Array(s[...i]) }
    }
    return nil
}

@Suite("shrinker")
struct ShrinkerTests {
    @Test func shrinksAThousandActionsToTheThreeThatMatter() {
        var random = ExploreRandom(seed: 7)
        let noise: [Character] = ["x", "y", "z", "a", "b"]
        var s: [Character] = (0..<1_000).map { _ in noise[random.below(noise.count)] }
        s[990] = "c"
        var shrinker = Shrinker<Character>(clock: Explorer.now)
        let minimal = shrinker.shrink(s, simplifications: { _ in [] }) { needsABC($0) }
        #expect(minimal == ["a", "b", "c"])
        #expect(shrinker.replays < 400)
    }

    @Test func actionsThatCancelInPairsAreRemovedTwoAtATime() {
        // "t" toggles a flag; the failure needs the flag on when "r" runs
        func fails(_ s: [Character]) -> [Character]? {
            var on = false
            for (i, ch) in s.enumerated() {
                if ch == "t" { on.toggle() }
                if ch == "r" && on { return Array(s[...i]) }
            }
            return nil
        }
        var shrinker = Shrinker<Character>(clock: Explorer.now)
        let minimal = shrinker.shrink(Array("tttttxxr"), simplifications: { _ in [] }, test: fails)
        #expect(minimal == ["t", "r"])
    }

    @Test func simplificationsAreTriedSimplestFirst() {
        var shrinker = Shrinker<String>(clock: Explorer.now)
        let minimal = shrinker.shrink(
            ["long text!"], simplifications: { s in s.isEmpty ? [] : ["", String(s.prefix(s.count / 2))] }
        ) {
            ($0.first?.count ?? 0) >= 3 ? $0 : nil
        }
        #expect(minimal == ["long "])
    }

    @Test func theBudgetStopsShrinking() {
        var shrinker = Shrinker<Int>(maxReplays: 5, clock: Explorer.now)
        _ = shrinker.shrink(Array(0..<100), simplifications: { _ in [] }) {
            $0.contains(99) && $0.contains(3) ? $0 : nil
        }
        #expect(shrinker.replays == 5)
    }

    @Test func actionsPrintAsPublicAPICalls() {
        let t = ExploreTarget(selector: "#save", index: 1)
        #expect(ExploreAction(kind: .tap, target: t).lua == ##"tap(root:find("#save"))"##)
        #expect(
            ExploreAction(kind: .tap, target: ExploreTarget(selector: "Item", index: 3), number: 2).lua
                == ##"tap(root:findAll("Item")[3], 2)"##)
        #expect(
            ExploreAction(kind: .typeText, target: t, text: "a\"b\n").lua
                == ##"typeText(root:find("#save"), "a\"b\n")"##)
        #expect(ExploreAction(kind: .advance, number: 0.5).lua == "advance(0.5)")
        #expect(ExploreAction(kind: .slide, target: t, number: 3).lua == ##"slide(root:find("#save"), 3)"##)
        #expect(
            ExploreAction(kind: .custom, name: "add", draws: [.int(2), .text("x")]).lua
                == ##"explore.perform("add", { 2, "x" })"##)
        #expect(ExploreAction(kind: .custom, name: "go").lua == ##"explore.perform("go")"##)
    }

    @Test func seedsMixTheSameWayEverywhere() {
        // fixed values: the sequence for a seed must never change between versions or machines
        #expect(ExploreRandom.mix(1, 0) == ExploreRandom.mix(1, 0))
        var r = ExploreRandom(seed: 42)
        #expect(r.next() == 0xBDD7_3226_2FEB_6E95)
        #expect(ExploreRandom.mix(1, 0) != ExploreRandom.mix(1, 1))
    }
}

/// What makes two failures the same, and the command that finds one again.
@Suite struct ExploreIdentityTests {
    /// The same line failing with other numbers in its message is the same failure (shrinking
    /// keeps it; found by an acceptance probe: `error("n is " .. n)` did not shrink).
    @Test func numbersInAMessageDoNotMakeAnotherFailure() {
        #expect(ExploreFailure.identity(ofMessage: "a.lua:3: n is 3") == "a.lua:3: n is #")
        // an address differs at every run (a table error object's default text): one number
        #expect(ExploreFailure.identity(ofMessage: "table: 0x55d3a0c2f1e0") == "table: #")
        #expect(
            ExploreFailure.identity(ofMessage: "table: 0x55d3a0c2f1e0")
                == ExploreFailure.identity(ofMessage: "table: 0x5612ffbb0a40"))
        #expect(ExploreFailure.identity(ofMessage: "got 0 exits") == "got # exits")
        // the same line raising for another cause (a shared helper) is another failure
        #expect(
            ExploreFailure.identity(ofMessage: "a.lua:3: broken: both")
                != ExploreFailure.identity(ofMessage: "a.lua:3: broken: two only"))
        #expect(
            ExploreFailure.identity(ofMessage: "a.lua:3: n is 3")
                == ExploreFailure.identity(ofMessage: "a.lua:3: n is 45"))
        #expect(ExploreFailure.identity(ofMessage: "a.lua:3: x") != ExploreFailure.identity(ofMessage: "a.lua:4: x"))
        #expect(ExploreFailure.identity(ofMessage: "unhandled event Pong{} from Q") == "unhandled event Pong")
    }

    @Test func theReplayCommandCarriesWhatChangesTheFinding() {
        var options = ExploreOptions(script: "s.lua")
        options.seed = 5
        #expect(options.replayCommand == "responder explore s.lua --seed 5")
        options.runs = 300
        options.steps = 7
        options.shard = (1, 3)
        options.safety = "strict"
        options.timeout = 2
        #expect(
            options.replayCommand
                == "responder explore s.lua --seed 5 --runs 300 --steps 7 --shard 1/3 --safety strict --timeout 2")
    }
}
