import ResponderEngine
import Testing

/// The engine charges what it keeps for a script to its world's meter and gives it all back
/// when the objects go away (the Lua bridge connects the meter to the capped allocator).
struct MemoryMeterTests {
    @Test func everythingChargedIsGivenBackWhenDropped() throws {
        let meter = MemoryMeter()
        do {
            let world = World(meter: meter)
            let event = ValueType(name: "SomethingHappenedWithALongName", kind: .event, meter: meter)
            let root = Node(name: "Root", meter: meter)
            let leaf = Node(
                name: String(repeating: "n", count: 100), id: "a-long-identifier-for-the-leaf",
                meter: meter)
            try root.add(leaf)
            root.addResponder(ResponderEntry(kind: .handleEvent, filter: event))
            let beforeDeclarations = meter.outstanding
            for _ in 0..<1000 { leaf.addResponder(.declaration(.triggers, [event, event, event])) }
            // each declaration: the entry, its type list and its slot
            #expect(meter.outstanding - beforeDeclarations >= 1000 * 150)
            try world.mount(root)
            let beforeDispatch = meter.outstanding
            let outcome = try world.trigger(Value(type: event), from: leaf)
            #expect(outcome.handled)
            #expect(meter.outstanding > beforeDispatch)  // the trace
            _ = try world.trigger(Value(type: ValueType(name: "Unheard", kind: .event)), from: root)
            #expect(world.warnings.count == 1)
            let withWarning = meter.outstanding
            world.clearWarnings()
            #expect(meter.outstanding < withWarning)
            leaf.id = String(repeating: "i", count: 1000)
            #expect(leaf.chargedBytes > 1000)
            world.reset()
        }
        #expect(meter.outstanding == 0)
    }

    @Test func aSinkSeesEveryChargeAndRelease() {
        final class Count { var bytes = 0 }
        let count = Count()
        let sink: MemoryMeter.Sink = { context, bytes in
            Unmanaged<Count>.fromOpaque(context!).takeUnretainedValue().bytes += bytes
        }
        let meter = MemoryMeter(sink: sink, context: Unmanaged.passUnretained(count).toOpaque())
        do {
            let node = Node(name: "N", meter: meter)
            node.addResponder(ResponderEntry(kind: .receiveEvent))
            #expect(count.bytes == meter.outstanding)
            #expect(count.bytes > 0)
        }
        #expect(count.bytes == 0)
        meter.disconnect()
        _ = Node(name: "After", meter: meter)
        #expect(count.bytes == 0)
    }
}
