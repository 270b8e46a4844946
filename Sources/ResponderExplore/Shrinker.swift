/// Delta debugging over action sequences (Zeller & Hildebrandt's ddmin, adapted as the
/// explore research note describes): delete chunks from the right, halving their size while no
/// deletion succeeds, down to single actions (1-minimal); then simplify arguments; repeat until
/// nothing changes or the budget runs out.
///
/// `test` replays a candidate and returns the actions that actually ran up to the failure when
/// it fails the same way (actions whose target was gone are dropped), or nil.
package struct Shrinker<Action: Hashable> {
    package var maxReplays: Int
    package var maxSeconds: Double
    package private(set) var replays = 0
    private var tried = Set<[Action]>()
    private let clock: () -> Double
    private var deadline = 0.0

    package init(maxReplays: Int = 5_000, maxSeconds: Double = 10, clock: @escaping () -> Double) {
        self.maxReplays = maxReplays
        self.maxSeconds = maxSeconds
        self.clock = clock
    }

    /// Whether the budget is used up.
    package var exhausted: Bool { replays >= maxReplays || clock() > deadline }

    /// Shrinks `initial` (which fails). `simplifications` gives simpler variants of one action,
    /// simplest first (an empty list when there are none).
    package mutating func shrink(
        _ initial: [Action], simplifications: (Action) -> [Action],
        test: ([Action]) -> [Action]?
    ) -> [Action] {
        deadline = clock() + maxSeconds
        var best = initial
        var changed = true
        while changed && !exhausted {
            changed = false
            if deleteChunks(&best, test) { changed = true }
            if simplify(&best, simplifications, test) { changed = true }
        }
        return best
    }

    private mutating func attempt(_ candidate: [Action], _ test: ([Action]) -> [Action]?) -> [Action]? {
        guard !exhausted, tried.insert(candidate).inserted else { return nil }
        replays += 1
        return test(candidate)
    }

    /// Deletes chunks from the right; returns whether anything was deleted.
    private mutating func deleteChunks(_ best: inout [Action], _ test: ([Action]) -> [Action]?) -> Bool {
        var any = false
        var size = max(1, best.count / 2)
        while !exhausted {
            var progress = false
            var end = best.count
            while end > 0 && !exhausted {
                let start = max(0, end - size)
                let candidate = Array(best[..<start] + best[end...])
                if let ran = attempt(candidate, test), ran.count < best.count {
                    best = ran
                    progress = true
                    any = true
                    end = min(start, best.count)
                } else {
                    end = start
                }
            }
            if !progress {
                if size == 1 { break }
                size = size > 2 ? size / 2 : 1
            }
        }
        if deletePairs(&best, test) { any = true }
        return any
    }

    /// Deletes two actions at any two positions (short sequences only): what chunk deletion
    /// misses when actions cancel out in pairs (a toggle switched on three times).
    private mutating func deletePairs(_ best: inout [Action], _ test: ([Action]) -> [Action]?) -> Bool {
        guard best.count >= 3 && best.count <= 40 else { return false }
        var any = false
        var j = best.count - 1
        while j > 0 && !exhausted {
            var i = j - 1
            var removed = false
            while i >= 0 && !exhausted {
                var candidate = best
                candidate.remove(at: j)
                candidate.remove(at: i)
                if let ran = attempt(candidate, test), ran.count < best.count {
                    best = ran
                    any = true
                    removed = true
                    break
                }
                i -= 1
            }
            j = removed ? min(j - 1, best.count - 1) : j - 1
        }
        return any
    }

    /// Replaces actions by simpler variants; returns whether anything changed.
    private mutating func simplify(
        _ best: inout [Action], _ simplifications: (Action) -> [Action],
        _ test: ([Action]) -> [Action]?
    ) -> Bool {
        var any = false
        var i = 0
        while i < best.count && !exhausted {
            for variant in simplifications(best[i]) where variant != best[i] {
                var candidate = best
                candidate[i] = variant
                if let ran = attempt(candidate, test), ran.count <= best.count {
                    best = ran
                    any = true
                    break
                }
            }
            i += 1
        }
        return any
    }
}
