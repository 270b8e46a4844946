/// Counts the memory the engine allocates on behalf of a script, so that a host can hold the
/// engine to the same memory cap as the script itself.
///
/// The engine charges what it keeps for a script (nodes, responder entries and their type lists,
/// publishers, subscribers, tap actions, types, traces, warnings, the strings it copies) when it
/// makes or grows it, and releases it when it goes away. Charges are estimates of the heap the
/// objects take, made at the points where they are created, never per step of a dispatch.
///
/// The meter only counts and forwards: it never refuses. A host that enforces a cap connects a
/// ``Sink`` and decides, once control returns to it, what crossing the cap means (the Lua
/// bridge adds the bytes to the count of its capped allocator and raises `memory limit
/// exceeded` after the Swift function returns). Without a sink the meter just keeps the total.
public final class MemoryMeter {
    /// Receives each charge (positive bytes) and release (negative bytes), with the host's
    /// context pointer. Called synchronously; it must not call back into the engine.
    public typealias Sink = @convention(c) (UnsafeMutableRawPointer?, Int) -> Void

    @exclusivity(unchecked) private var sink: Sink?
    @exclusivity(unchecked) private var context: UnsafeMutableRawPointer?
    /// Bytes charged and not released yet.
    @exclusivity(unchecked) public private(set) var outstanding = 0

    /// Creates a meter that forwards to `sink` (with `context`), or only counts without one.
    public init(sink: Sink? = nil, context: UnsafeMutableRawPointer? = nil) {
        self.sink = sink
        self.context = context
    }

    /// Records `bytes` allocated for the script.
    @inline(__always)
    public func charge(_ bytes: Int) {
        outstanding &+= bytes
        if let sink { sink(context, bytes) }
    }

    /// Records `bytes` given back.
    @inline(__always)
    public func release(_ bytes: Int) {
        outstanding &-= bytes
        if let sink { sink(context, -bytes) }
    }

    /// Stops forwarding (the host's counter goes away); objects charged earlier can still be
    /// released, which then only updates ``outstanding``.
    public func disconnect() {
        sink = nil
        context = nil
    }
}

extension MemoryMeter {
    /// Estimated heap bytes of the allocations behind engine objects (glibc chunks on 64-bit
    /// Linux: an 8-byte header, 16-byte granules). Calibrated against the C heap's growth by
    /// the bridge's memory tests.
    public enum Cost {
        /// One heap block holding `payload` bytes.
        @inline(__always)
        public static func block(_ payload: Int) -> Int { max(32, (payload + 8 + 15) & ~15) }

        /// A class instance with `storedBytes` of stored properties (16-byte object header).
        @inline(__always)
        public static func object(_ storedBytes: Int) -> Int { block(16 + storedBytes) }

        /// The out-of-line storage of a string (0 for short ones, which Swift keeps inline).
        @inline(__always)
        public static func string(_ text: String) -> Int {
            let count = text.utf8.count
            return count <= 15 ? 0 : block(32 + count + 1)
        }

        /// Array storage for `count` elements of `stride` bytes, with the spare capacity of
        /// growth by doubling (counted as half again on average).
        @inline(__always)
        public static func array(_ count: Int, stride: Int = 8) -> Int {
            count == 0 ? 0 : block(32 + count * stride + count * stride / 2)
        }

        /// One more element of `stride` bytes in a growing array (amortized over doublings).
        public static let arraySlot = 12
    }
}
