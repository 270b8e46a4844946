#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The record of one action: which entries saw the value and what they did.
///
/// A dispatch records compact ``StepRecord``s (indices into the path, the list snapshots and
/// the values; no reference counting per step) into manually managed buffers; ``steps`` and
/// the text form are built only when asked. The first snapshots and records share one block
/// allocated with the trace (a buffer that outgrows it moves to a block of its own).
public final class Trace: CustomStringConvertible {
    /// What started the action.
    public let kind: TraceKind
    /// The value the action started with.
    public let initialValue: Value
    /// The fixed dispatch path (origin first); the publisher's node for publications.
    public let path: [Node]

    /// Values other than the initial one (results), in order of appearance; index 1 onward.
    private(set) var laterValues: [Value] = []
    /// The lists of the path nodes the dispatch reached that had entries, as they were when the
    /// dispatch arrived there (nodes with empty lists are not stored), in path order.
    @exclusivity(unchecked) private var snapshotBase: UnsafeMutablePointer<Snapshot>
    @exclusivity(unchecked) private(set) var snapshotCount = 0
    @exclusivity(unchecked) private var snapshotCapacity: Int
    @exclusivity(unchecked) private var recordBase: UnsafeMutablePointer<StepRecord>
    @exclusivity(unchecked) private(set) var recordCount = 0
    @exclusivity(unchecked) private var recordCapacity: Int
    /// The block made with the trace that holds the first snapshots and records (nil for traces
    /// that record no steps of their own); a buffer that outgrew it has a block of its own.
    private let firstBlock: UnsafeMutableRawPointer?
    private let directSteps: [TraceStep]
    /// The memory charged for the trace once its action ended (see ``charge(to:sharedPath:)``).
    private var memory = MemoryAccount(nil)
    /// How the dispatch ended, set with the ``Outcome`` the world returns for it (nil before,
    /// and for publications and control actions). It holds nothing the trace does not hold
    /// already: `by` is a node of the path, `value` one of the trace's values.
    public private(set) var ending: Ending?

    /// How a dispatch ended: the fields of its ``Outcome`` but the trace.
    public struct Ending {
        /// Whether some entry consumed the value.
        public let handled: Bool
        /// The node whose entry consumed it.
        public let by: Node?
        /// The consuming entry's kind name, e.g. `"handleEvent"`.
        public let responder: String?
        /// The final value, after transforms and conversions.
        public let value: Value
    }

    /// Snapshots and records the first block has room for (a dispatch past that grows them).
    private static let firstSnapshots = 16
    private static let firstRecords = 16
    /// Where the records start in the first block.
    private static let recordsOffset: Int = {
        let end = firstSnapshots * MemoryLayout<Snapshot>.stride
        let align = MemoryLayout<StepRecord>.alignment
        return (end + align - 1) / align * align
    }()
    private static let firstBlockBytes = recordsOffset + firstRecords * MemoryLayout<StepRecord>.stride

    /// One stored list: the path index of its node and the list.
    struct Snapshot {
        var node: Int
        var list: [ResponderEntry]
    }

    init(kind: TraceKind, initialValue: Value, path: [Node]) {
        self.kind = kind
        self.initialValue = initialValue
        self.path = path
        self.directSteps = []
        // one malloc for both (UnsafeMutablePointer.allocate is posix_memalign here, twice)
        guard let block = malloc(Trace.firstBlockBytes) else { fatalError("out of memory for a trace") }
        firstBlock = block
        snapshotCapacity = Trace.firstSnapshots
        snapshotBase = block.bindMemory(to: Snapshot.self, capacity: Trace.firstSnapshots)
        recordCapacity = Trace.firstRecords
        recordBase = (block + Trace.recordsOffset).bindMemory(to: StepRecord.self, capacity: Trace.firstRecords)
    }

    init(publication value: Value, path: [Node], steps: [TraceStep]) {
        self.kind = .publish
        self.initialValue = value
        self.path = path
        self.directSteps = steps
        firstBlock = nil
        snapshotCapacity = 0
        snapshotBase = .allocate(capacity: 0)
        recordCapacity = 0
        recordBase = .allocate(capacity: 0)
    }

    /// A trace of a control action that started no dispatch of its own (for example input that
    /// a disabled control refused, a single step with `decision`): the action's name (`tap`, `touchUpInside`, …) is the
    /// initial value's type name, `origin` the control.
    convenience init(action name: String, origin: Node, decision: Decision) {
        let value = Trace.actionValue(name)
        self.init(
            action: value, origin: origin,
            steps: [
                TraceStep(
                    node: origin, index: 0, responder: name, filter: nil,
                    value: value, decision: decision)
            ])
    }

    /// The value that stands for the control action `name` in an action trace's steps.
    public static func actionValue(_ name: String) -> Value {
        Value(type: ValueType(name: name, kind: .event))
    }

    /// A trace of a control action (`sendActions`, simulated input): `steps` say which entries
    /// of the control's dispatch table ran and, for nil-targeted actions, which nodes of the
    /// responder chain were asked and who performed. `value` is ``actionValue(_:)``.
    public init(action value: Value, origin: Node, steps: [TraceStep]) {
        self.kind = .action
        self.initialValue = value
        self.path = [origin]
        self.directSteps = steps
        firstBlock = nil
        snapshotCapacity = 0
        snapshotBase = .allocate(capacity: 0)
        recordCapacity = 0
        recordBase = .allocate(capacity: 0)
    }

    deinit {
        snapshotBase.deinitialize(count: snapshotCount)
        if let firstBlock {
            if UnsafeMutableRawPointer(snapshotBase) != firstBlock { snapshotBase.deallocate() }
            if UnsafeMutableRawPointer(recordBase) != firstBlock + Trace.recordsOffset { recordBase.deallocate() }
            free(firstBlock)
        } else {
            snapshotBase.deallocate()
            recordBase.deallocate()
        }
    }

    /// Records how the dispatch ended (the world does, as it returns the outcome).
    func end(_ ending: Ending) { self.ending = ending }

    /// Charges the finished trace to `meter`: its buffers, the values it keeps and, unless
    /// `sharedPath` (the path array is the previous trace's), its path. Released with the trace.
    func charge(to meter: MemoryMeter, sharedPath: Bool) {
        typealias Cost = MemoryMeter.Cost
        var bytes =
            Cost.object(128) + (1 + laterValues.count) * Value.cost
            + bufferBytes + Cost.array(laterValues.count)
        if !sharedPath { bytes += Cost.array(path.count) }
        if !directSteps.isEmpty {
            bytes += Cost.array(directSteps.count, stride: MemoryLayout<TraceStep>.stride)
            for step in directSteps { bytes += Cost.string(step.responder) }
        }
        memory = MemoryAccount(meter)
        memory.charge(bytes)
    }

    /// The bytes of the step buffers: the first block, and each buffer that outgrew it.
    private var bufferBytes: Int {
        typealias Cost = MemoryMeter.Cost
        let snapshots = Cost.block(snapshotCapacity * MemoryLayout<Snapshot>.stride)
        let records = Cost.block(recordCapacity * MemoryLayout<StepRecord>.stride)
        guard let firstBlock else { return snapshots + records }
        var bytes = Cost.block(Trace.firstBlockBytes)
        if UnsafeMutableRawPointer(snapshotBase) != firstBlock { bytes += snapshots }
        if UnsafeMutableRawPointer(recordBase) != firstBlock + Trace.recordsOffset { bytes += records }
        return bytes
    }

    /// The node where the action started.
    public var origin: Node { path[0] }

    /// Number of steps, without materializing them.
    public var count: Int { kind == .publish || kind == .action ? directSteps.count : recordCount }

    /// The steps in order.
    public var steps: [TraceStep] {
        if kind == .publish || kind == .action { return directSteps }
        return (0..<recordCount).map { step(recordBase[$0]) }
    }

    /// The header line: `event ItemSelected{item="b"} from Item#b`.
    public var header: String {
        // (one line: a line break in a name, an id or a type name is shown as a space)
        let origin = TextClip.clip(origin.description, to: TextClip.column)
        if kind == .action {
            return TextEscaper.oneLine(
                "action \(TextClip.clip(initialValue.type.name, to: TextClip.column)) from \(origin)")
        }
        return TextEscaper.oneLine("\(kind.rawValue) \(initialValue) from \(origin)")
    }

    /// The text form: the header, then one line per step (see ``TraceStep/description``), the
    /// node and responder columns widened to the longest name when one exceeds 12 or 28 columns,
    /// the index column to the widest index (`#10` and on).
    public var description: String {
        let steps = self.steps
        var nodeWidth = TraceStep.nodeWidth
        var responderWidth = TraceStep.responderWidth
        var indexWidth = 2
        for step in steps {
            nodeWidth = max(nodeWidth, min(TextEscaper.oneLine(step.node.description).count, TextClip.column))
            responderWidth = max(responderWidth, min(TextEscaper.oneLine(step.responder).count, TextClip.column))
            indexWidth = max(indexWidth, step.indexWidth)
        }
        var lines = [header]
        for step in steps {
            lines.append(step.line(nodeWidth: nodeWidth, responderWidth: responderWidth, indexWidth: indexWidth))
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Recording (used by the dispatcher)

    /// Stores the (non-empty) list of `path[node]`; returns its elements' base address, valid
    /// while the trace lives (the stored array's buffer is never mutated: a change to the
    /// node's list copies it). Nodes must be stored in path order.
    @inline(__always)
    func takeSnapshot(_ list: [ResponderEntry], of node: Int) -> UnsafePointer<ResponderEntry> {
        let base = list.withUnsafeBufferPointer { $0.baseAddress.unsafelyUnwrapped }
        if snapshotCount == snapshotCapacity { growSnapshots() }
        (snapshotBase + snapshotCount).initialize(to: Snapshot(node: node, list: list))
        snapshotCount += 1
        return base
    }

    @inline(never)
    private func growSnapshots() {
        let capacity = max(8, snapshotCapacity * 2)
        let base = UnsafeMutablePointer<Snapshot>.allocate(capacity: capacity)
        base.moveInitialize(from: snapshotBase, count: snapshotCount)
        if UnsafeMutableRawPointer(snapshotBase) != firstBlock { snapshotBase.deallocate() }
        snapshotBase = base
        snapshotCapacity = capacity
    }

    /// The list most recently stored by ``takeSnapshot(_:of:)``.
    var currentSnapshot: [ResponderEntry] { snapshotBase[snapshotCount - 1].list }

    /// The snapshot of `path[index]` (empty when the dispatch did not reach it or its list was empty).
    func snapshot(_ index: Int) -> [ResponderEntry] {
        var low = 0
        var high = snapshotCount
        while low < high {
            let middle = (low + high) / 2
            let node = snapshotBase[middle].node
            if node == index { return snapshotBase[middle].list }
            if node < index { low = middle + 1 } else { high = middle }
        }
        return []
    }

    @inline(__always)
    func record(_ record: StepRecord) {
        if recordCount == recordCapacity { grow() }
        (recordBase + recordCount).initialize(to: record)
        recordCount += 1
    }

    @inline(never)
    private func grow() {
        let capacity = max(8, recordCapacity * 2)
        let base = UnsafeMutablePointer<StepRecord>.allocate(capacity: capacity)
        base.moveInitialize(from: recordBase, count: recordCount)
        if firstBlock.map({ UnsafeMutableRawPointer(recordBase) != $0 + Trace.recordsOffset }) ?? true {
            recordBase.deallocate()
        }
        recordBase = base
        recordCapacity = capacity
    }

    /// The decision of the last recorded step (`.unhandled` before any).
    var lastDecision: Decision { recordCount > 0 ? recordBase[recordCount - 1].decision : .unhandled }

    /// Stores a result value; returns its index.
    func store(_ value: Value) -> Int32 {
        laterValues.append(value)
        return Int32(truncatingIfNeeded: laterValues.count)
    }

    private func value(_ index: Int32) -> Value {
        index == 0 ? initialValue : laterValues[Int(index) - 1]
    }

    private func step(_ record: StepRecord) -> TraceStep {
        let node = path[Int(record.node)]
        let seen = value(record.value)
        let result = record.result < 0 ? nil : value(record.result)
        guard record.entry >= 0 else {
            return TraceStep(
                node: node, index: 0, responder: "", filter: nil, value: seen,
                decision: record.decision, result: result)
        }
        let entry = snapshot(Int(record.node))[Int(record.entry)]
        var step = TraceStep(
            node: node, index: Int(record.entry) + 1, responder: entry.label,
            filter: entry.filter, value: seen, decision: record.decision,
            result: result)
        step.entry = entry
        return step
    }
}
