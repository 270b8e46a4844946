/// The explorer's random numbers: SplitMix64, the same sequence for a seed on every machine
/// (Swift's own generators and hashing are not stable across processes).
package struct ExploreRandom: Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// Mixes a seed and a run index into the seed of that run.
    package static func mix(_ seed: UInt64, _ run: Int) -> UInt64 {
        var r = ExploreRandom(seed: seed ^ (UInt64(truncatingIfNeeded: run) &* 0xD1B5_4A32_D192_ED03))
        _ = r.next()
        return r.next()
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<n` (n > 0), without modulo bias (rejection).
    package mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        let bound = UInt64(n)
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let x = next()
            if x < limit { return Int(x % bound) }
        }
    }

    /// A uniform integer in `lo...hi`.
    package mutating func int(_ lo: Int64, _ hi: Int64) -> Int64 {
        if lo >= hi { return lo }
        let span = UInt64(bitPattern: hi &- lo) &+ 1
        if span == 0 { return Int64(bitPattern: next()) }
        let limit = UInt64.max - UInt64.max % span
        while true {
            let x = next()
            if x < limit { return lo &+ Int64(bitPattern: x % span) }
        }
    }

    /// A uniform double in `[0, 1)`.
    package mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    package mutating func chance(_ p: Double) -> Bool { unit() < p }
}
