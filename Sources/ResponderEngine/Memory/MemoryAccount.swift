/// The bytes charged to a ``MemoryMeter`` for one owner (a node and what it holds, a type, a
/// trace), given back together when the owner goes away.
///
/// Owners keep it as a stored property: its `deinit` releases what is left, so an owner's own
/// `deinit` needs no memory bookkeeping.
public struct MemoryAccount: ~Copyable {
    /// The meter charged, or `nil` when nothing is counted.
    public let meter: MemoryMeter?
    /// Bytes charged through this account and not released yet.
    public private(set) var bytes = 0

    /// An empty account on `meter`.
    public init(_ meter: MemoryMeter?) {
        self.meter = meter
    }

    /// Charges `amount` bytes.
    @inline(__always)
    public mutating func charge(_ amount: Int) {
        guard let meter else { return }
        bytes &+= amount
        meter.charge(amount)
    }

    /// Releases `amount` bytes (never more than were charged).
    @inline(__always)
    public mutating func release(_ amount: Int) {
        guard let meter else { return }
        let amount = min(amount, bytes)
        bytes &-= amount
        meter.release(amount)
    }

    deinit {
        if bytes != 0 { meter?.release(bytes) }
    }
}
