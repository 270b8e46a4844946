/// The retains that live userdata own, so that those Lua frees without calling their `__gc` are
/// given back when the state closes (see `ModuleState.retained(_:)`; scripts/fuzz-findings.md
/// F-leak).
///
/// A multiset of object addresses in an open-addressing table (linear probing, deletion by
/// backward shift, at most half full): an insert and a remove cost a few dozen instructions,
/// where a `Dictionary` cost about 1,200 per dispatch (its hashing and growth; measured with
/// callgrind on 20,000 depth-1 dispatches). An address may be present more than once (an object
/// can get a new userdata before Lua has finalized its old one); a remove takes out one.
struct RetainLedger: ~Copyable {
    /// 0 marks an empty slot (no object lives at address 0).
    private var slots: UnsafeMutablePointer<UInt>
    private var capacity: Int
    /// log2(capacity), for the multiplicative hash's shift.
    private var bits: Int
    /// How many addresses are held.
    private(set) var count = 0

    init() {
        bits = 6
        capacity = 1 << bits
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
    }

    deinit { slots.deallocate() }

    /// Fibonacci hashing of the address (objects are 16-byte aligned: the low bits carry nothing).
    @inline(__always)
    private func home(_ key: UInt) -> Int {
        Int(truncatingIfNeeded: ((key >> 4) &* 0x9E37_79B9_7F4A_7C15) >> UInt(64 - bits))
    }

    /// Adds one occurrence of `p`.
    @inline(__always)
    mutating func insert(_ p: UnsafeMutableRawPointer) {
        if (count + 1) * 2 > capacity { grow() }
        place(UInt(bitPattern: p))
        count += 1
    }

    @inline(__always)
    private func place(_ key: UInt) {
        let mask = capacity - 1
        var i = home(key)
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = key
    }

    @inline(never)
    private mutating func grow() {
        let old = slots
        let oldCapacity = capacity
        bits += 1
        capacity = 1 << bits
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        for i in 0..<oldCapacity where old[i] != 0 { place(old[i]) }
        old.deallocate()
    }

    /// Removes one occurrence of `p`; returns whether there was one.
    @discardableResult
    mutating func remove(_ p: UnsafeMutableRawPointer) -> Bool {
        let key = UInt(bitPattern: p)
        let mask = capacity - 1
        var i = home(key)
        while slots[i] != key {
            if slots[i] == 0 { return false }
            i = (i + 1) & mask
        }
        // backward shift: move later entries of the probe run into the hole when their home
        // does not lie cyclically in (hole, their slot]
        var j = i
        while true {
            j = (j + 1) & mask
            let moved = slots[j]
            if moved == 0 { break }
            let k = home(moved)
            let staysPut = i <= j ? (i < k && k <= j) : (i < k || k <= j)
            if staysPut { continue }
            slots[i] = moved
            i = j
        }
        slots[i] = 0
        count -= 1
        return true
    }

    /// Whether `p` is held at least once.
    func contains(_ p: UnsafeMutableRawPointer) -> Bool {
        let key = UInt(bitPattern: p)
        let mask = capacity - 1
        var i = home(key)
        while slots[i] != 0 {
            if slots[i] == key { return true }
            i = (i + 1) & mask
        }
        return false
    }

    /// Empties the ledger and returns what it held (each occurrence once).
    mutating func takeAll() -> [UnsafeMutableRawPointer] {
        var all: [UnsafeMutableRawPointer] = []
        all.reserveCapacity(count)
        for i in 0..<capacity where slots[i] != 0 {
            all.append(UnsafeMutableRawPointer(bitPattern: slots[i])!)
            slots[i] = 0
        }
        count = 0
        return all
    }
}
