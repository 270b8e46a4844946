import Testing

@testable import ResponderLua

/// The ledger of the retains userdata own (scripts/fuzz-findings.md F-leak): a multiset of
/// addresses that must never lose or invent one, whatever the order of inserts and removes.
@Suite("retain ledger")
struct RetainLedgerTests {
    /// A 16-byte aligned address, as objects have.
    static func address(_ n: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: UInt(n) << 4)!
    }

    @Test func randomOperationsAgreeWithACountingDictionary() {
        var ledger = RetainLedger()
        var reference: [Int: Int] = [:]
        var random = SystemRandomNumberGenerator()
        // a few hundred distinct addresses, so that probe runs overlap, grow and wrap around
        for _ in 0..<200_000 {
            let n = Int.random(in: 1...700, using: &random)
            let p = Self.address(n)
            if Bool.random(using: &random) {
                ledger.insert(p)
                reference[n, default: 0] += 1
            } else {
                let had = reference[n, default: 0] > 0
                let removed = ledger.remove(p)
                #expect(removed == had)
                if had { reference[n] = reference[n]! > 1 ? reference[n]! - 1 : nil }
            }
        }
        let count = ledger.count
        #expect(count == reference.values.reduce(0, +))
        for n in 1...700 {
            let held = ledger.contains(Self.address(n))
            #expect(held == (reference[n] != nil))
        }
        var taken: [Int: Int] = [:]
        for p in ledger.takeAll() { taken[Int(UInt(bitPattern: p) >> 4), default: 0] += 1 }
        #expect(taken == reference)
        let left = ledger.count
        let removedFromEmpty = ledger.remove(Self.address(1))
        #expect(left == 0 && !removedFromEmpty)
    }

    @Test func anAddressHeldTwiceIsRemovedOnceAtATime() {
        var ledger = RetainLedger()
        let p = Self.address(42)
        ledger.insert(p)
        ledger.insert(p)
        let first = ledger.remove(p)
        let stillHeld = ledger.contains(p)
        let second = ledger.remove(p)
        let heldAfter = ledger.contains(p)
        let third = ledger.remove(p)
        #expect(first && stillHeld && second && !heldAfter && !third)
    }
}
