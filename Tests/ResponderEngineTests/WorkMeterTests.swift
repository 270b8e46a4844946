import ResponderEngine
import Testing

/// Sink for the stopping test: says stop once more than `stopAfter` units were charged.
private nonisolated(unsafe) var stopAfter = Int64.max
private nonisolated(unsafe) var sunk: Int64 = 0
private let stoppingSink: WorkMeter.Sink = { _, units in
    sunk += units
    return sunk > stopAfter ? 1 : 0
}

/// The engine charges the work it does for a script (nodes visited by searches and walks,
/// dispatch paths) to a work meter, which a host holds to its instruction budget (issue 7
/// defect 8); a search the meter stops ends early.
@Suite(.serialized)
struct WorkMeterTests {
    static func wide(_ count: Int) throws -> Node {
        let root = Node(name: "Root")
        for _ in 0..<count { try root.add(Node(name: "Item")) }
        return root
    }

    @Test func searchesChargeEveryNodeTheyVisit() throws {
        let root = try Self.wide(10_000)
        let work = WorkMeter()
        #expect(root.find("Missing", work: work) == nil)
        #expect(work.charged == 10_001)
        #expect(root.findAll("Item", work: work).count == 10_000)
        #expect(work.charged == 20_002)
        // a search that finds early stops early
        #expect(root.find("Item", work: work) != nil)
        #expect(work.charged == 20_004)
    }

    @Test func aSearchTheMeterStopsEndsEarly() throws {
        let root = try Self.wide(100_000)
        sunk = 0
        stopAfter = 5_000
        defer { stopAfter = .max }
        let work = WorkMeter(sink: stoppingSink)
        #expect(root.find("Missing", work: work) == nil)
        #expect(work.charged <= 5_000 + 2 * WorkMeter.batch)
        sunk = 0
        let partial = root.findAll("Item", work: WorkMeter(sink: stoppingSink))
        #expect(partial.count < 6_000)
    }

    @Test func worldWalksAndDispatchPathsAreCharged() throws {
        let work = WorkMeter()
        let world = World(work: work)
        let event = ValueType(name: "E", kind: .event)
        let root = Node(name: "Root")
        root.addResponder(ResponderEntry(kind: .receiveEvent, filter: event))
        var leaf = root
        for _ in 0..<1_000 {
            let next = Node(name: "Link")
            try leaf.add(next)
            leaf = next
        }
        try world.mount(root)
        let mounted = work.charged
        #expect(mounted >= 1_001)
        _ = try world.trigger(Value(type: event), from: leaf)
        #expect(work.charged - mounted >= 1_001)
    }
}
