/// Counts the work the engine does on behalf of a script (nodes visited by walks and searches,
/// dispatch paths, subscribers notified), so that a host can hold that work to the same budget
/// as the script's own instructions.
///
/// One unit is one node or entry visited. Charges are batched by the walks (a call per
/// ``batch`` units), so metering costs a walk next to nothing.
///
/// The meter only forwards: the host's ``Sink`` answers whether the work must stop (the Lua
/// bridge adds the units to the instruction budget and answers true once a limit is pending; it
/// raises the limit after the Swift function returns). Searches stop early then; walks that must
/// leave the tree consistent (mounting, dispatching) finish and only charge.
public final class WorkMeter {
    /// Receives each charge of `units` with the host's context pointer; returns nonzero when the
    /// work must stop. Called synchronously; it must not call back into the engine.
    public typealias Sink = @convention(c) (OpaquePointer?, Int64) -> Int32

    /// Units a walk accumulates before it charges them.
    public static let batch = 256

    @exclusivity(unchecked) private var sink: Sink?
    @exclusivity(unchecked) private var context: OpaquePointer?
    /// Units charged so far (all time).
    @exclusivity(unchecked) public private(set) var charged = 0

    /// Creates a meter that forwards to `sink` (with `context`), or only counts without one.
    public init(sink: Sink? = nil, context: OpaquePointer? = nil) {
        self.sink = sink
        self.context = context
    }

    /// Charges `units` of work; returns whether the work must stop.
    @inline(__always)
    @discardableResult
    public func charge(_ units: Int) -> Bool {
        guard units > 0 else { return false }
        charged &+= units
        guard let sink else { return false }
        return sink(context, Int64(units)) != 0
    }

    /// Stops forwarding (the host's budget goes away).
    public func disconnect() {
        sink = nil
        context = nil
    }
}

/// A walk's running count of units, charged to a meter every ``WorkMeter/batch`` units.
struct WorkTally {
    let meter: WorkMeter?
    private var pending = 0

    init(_ meter: WorkMeter?) { self.meter = meter }

    /// Counts one unit; returns whether the work must stop (checked once per batch).
    @inline(__always)
    mutating func step() -> Bool {
        pending &+= 1
        guard pending >= WorkMeter.batch, let meter else { return false }
        let units = pending
        pending = 0
        return meter.charge(units)
    }

    /// Counts `units` at once; returns whether the work must stop (checked once per batch).
    @inline(__always)
    mutating func add(_ units: Int) -> Bool {
        pending &+= units
        guard pending >= WorkMeter.batch, let meter else { return false }
        let charged = pending
        pending = 0
        return meter.charge(charged)
    }

    /// Charges what is left; returns whether the work must stop.
    @discardableResult
    mutating func finish() -> Bool {
        let units = pending
        pending = 0
        return meter?.charge(units) ?? false
    }
}
