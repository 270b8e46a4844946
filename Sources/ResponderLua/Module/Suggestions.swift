import CLua
import CLuaShim

/// "Did you mean …?" for misspelled names (`handelEvent`, `recieveEvent`, option keys).
package enum Suggestions {
    /// The candidate nearest to `name` when it is a likely misspelling: at most one edit for
    /// names shorter than 6 characters, two otherwise (insertions, deletions, substitutions and
    /// swaps of neighbours count one each); nil when nothing is that close or `name` is a candidate.
    package static func nearest(to name: String, in candidates: some Sequence<String>) -> String? {
        let a = Array(name.lowercased().utf8)
        guard a.count >= 3 else { return nil }
        let limit = a.count < 6 ? 1 : 2
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            if candidate == name { return nil }
            let b = Array(candidate.lowercased().utf8)
            guard abs(a.count - b.count) <= limit else { continue }
            let d = distance(a, b)
            if d <= limit, best == nil || d < best!.distance { best = (candidate, d) }
        }
        return best?.name
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits).
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// A function that raises its first upvalue (a message) at the caller's line: what a
    /// misspelled method name resolves to, so that calling it explains itself.
    static let raiseUpvalue: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        return m.fail(m.runtime.string(at: luashim_upvalueindex(2)) ?? "no such method")
    }
}
