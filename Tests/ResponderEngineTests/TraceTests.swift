import ResponderEngine
import Testing

@Suite struct TraceTests {
    @Test func traceTextMatchesTheSpecExample() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .receiveEvent)
        on(tree.grid, .transformEvent, T.firstEvent) { event, _ in .value(event) }
        on(tree.root, .handleError)
        on(tree.root, .handleEvent, T.itemSelected)
        let outcome = try world.trigger(value(T.itemSelected, ["item": "b"]), from: tree.item)
        #expect(
            outcome.trace.description == """
                event ItemSelected{item="b"} from Item#b
                  Item#b       #1 receiveEvent                 passed
                  Grid         #1 transformEvent(FirstEvent)   skipped
                  Root         #2 handleEvent(ItemSelected)    handled
                """)
    }

    @Test func unhandledValueEndsWithUnhandledStepOnRoot() throws {
        let tree = SampleTree()
        let world = World()
        tree.grid.addResponder(.declaration(.triggers, [T.itemSelected, T.other]))
        let trace = try world.trigger(value(T.itemSelected), from: tree.item).trace
        #expect(
            trace.description == """
                event ItemSelected{} from Item#b
                  Grid         #1 triggers(ItemSelected, Other) declared
                  Root            unhandled
                """)
        let last = try #require(trace.steps.last)
        #expect(last.node === tree.root && last.index == 0 && last.responder == "")
    }

    @Test func stepsContinueAcrossKindChangesAndHeaderKeepsInitialValue() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .handleEvent) { _, _ in .thrown(value(T.failure)) }
        on(tree.item, .receiveEvent)
        on(tree.grid, .catchError) { _, _ in .value(value(T.other)) }
        on(tree.root, .transformEvent) { _, _ in .value(value(T.firstEvent)) }
        on(tree.root, .handleEvent)
        let trace = try world.trigger(value(T.itemSelected), from: tree.item).trace
        #expect(
            trace.description == """
                event ItemSelected{} from Item#b
                  Item#b       #1 handleEvent                  threw
                  Grid         #1 catchError                   caught
                  Root         #1 transformEvent               transformed
                  Root         #2 handleEvent                  handled
                """)
        let steps = trace.steps
        #expect(steps[0].value.type === T.itemSelected && steps[0].result?.type === T.failure)
        #expect(steps[1].value.type === T.failure && steps[1].result?.type === T.other)
        #expect(steps[2].result?.type === T.firstEvent && steps[3].value.type === T.firstEvent)
    }

    @Test func errorTraceRecordsFilterAndAlertDecisions() throws {
        let tree = SampleTree()
        let world = World()
        tree.item.addResponder(ResponderEntry(kind: .handleAlertErrors))
        on(tree.item, .receiveError, T.failure)
        let trace = try world.report(value(T.otherFailure), from: tree.item).trace
        #expect(trace.kind == .error)
        #expect(trace.steps.map(\.decision) == [.passed, .skipped, .unhandled])
        #expect(trace.steps[1].filter === T.failure && trace.steps[1].responder == "receiveError(Failure)")
    }

    @Test func nodesWithoutEntriesLeaveNoStepsAndEntryIndicesStayPerNode() throws {
        let chain = (0..<6).map { Node(name: "N\($0)") }
        for (child, parent) in zip(chain, chain.dropFirst()) { try parent.add(child) }
        let harness = Harness(level: .relaxed)
        on(chain[0], .receiveEvent, T.other)
        chain[3].addResponder(.declaration(.triggers, [T.itemSelected]))
        chain[3].addResponder(.declaration(.triggers, [T.other]))
        on(chain[3], .receiveEvent)
        on(chain[5], .receiveEvent, T.other)
        let outcome = try harness.world.trigger(value(T.itemSelected), from: chain[0])
        #expect(!outcome.handled)
        // the second declaration is covered by the earlier one on the same node
        #expect(harness.world.warnings.map(\.kind) == [.unhandledEvent])
        #expect(
            outcome.trace.description == """
                event ItemSelected{} from N0
                  N0           #1 receiveEvent(Other)          skipped
                  N3           #1 triggers(ItemSelected)       declared
                  N3           #2 triggers(Other)              declared
                  N3           #3 receiveEvent                 passed
                  N5           #1 receiveEvent(Other)          skipped
                  N5              unhandled
                """)
        #expect(outcome.trace.steps.map(\.index) == [1, 1, 2, 3, 1, 0])
        #expect(outcome.trace.steps.map(\.node.name) == ["N0", "N3", "N3", "N3", "N5", "N5"])
    }

    @Test func longColumnsAreFollowedByOneSpace() {
        let node = Node(name: "AVeryLongNodeName", id: "x")
        let step = TraceStep(
            node: node, index: 12, responder: "transformEvent(AVeryLongEventTypeName)",
            filter: nil, value: value(T.other), decision: .skipped)
        #expect(step.description == "  AVeryLongNodeName#x #12 transformEvent(AVeryLongEventTypeName) skipped")
    }

    @Test func traceSnapshotIsUnaffectedByLaterListChanges() throws {
        let node = Node(name: "N")
        let world = World()
        on(node, .receiveEvent, id: "gone")
        let trace = try world.trigger(value(T.other), from: node).trace
        node.removeResponder(id: "gone")
        on(node, .handleEvent, T.other)
        #expect(trace.steps.map(\.responder) == ["receiveEvent", ""])
        #expect(trace.count == 2)
    }
}
