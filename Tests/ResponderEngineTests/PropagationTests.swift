import ResponderEngine
import Testing

@Suite struct PropagationTests {
    @Test func valueWalksNodeListInRegistrationOrderThenParents() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.grid, .receiveEvent, log: log, name: "grid1")
        on(tree.item, .receiveEvent, log: log, name: "item1")
        on(tree.item, .receiveEvent, log: log, name: "item2")
        on(tree.grid, .receiveEvent, log: log, name: "grid2")
        on(tree.root, .handleEvent, log: log, name: "root")
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["item1", "item2", "grid1", "grid2", "root"])
        #expect(outcome.handled)
        #expect(outcome.by === tree.root)
        #expect(outcome.responder == "handleEvent")
    }

    @Test func siblingsNeverSeeTheValue() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        let sibling = Node(name: "Sibling")
        try tree.grid.add(sibling)
        on(sibling, .handleEvent, log: log, name: "sibling")
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines.isEmpty)
        #expect(!outcome.handled)
    }

    @Test func typedFilterMatchesSubtypesAndSkipsOthers() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .handleEvent, T.other, log: log, name: "other")
        on(tree.grid, .receiveEvent, T.base, log: log, name: "base")
        on(tree.root, .handleEvent, T.sub, log: log, name: "sub")
        try world.trigger(value(T.sub), from: tree.item)
        #expect(log.lines == ["base", "sub"])
        log.lines = []
        let outcome = try world.trigger(value(T.base), from: tree.item)
        #expect(log.lines == ["base"])
        #expect(!outcome.handled)
    }

    @Test func receiveEventHandledStopsAndNotHandledPassesTheOriginal() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        let original = value(T.itemSelected)
        on(tree.item, .receiveEvent) { _, _ in .notHandled }
        on(tree.grid, .receiveEvent) { seen, _ in
            #expect(seen === original)
            return .handled
        }
        on(tree.root, .handleEvent, log: log)
        let outcome = try world.trigger(original, from: tree.item)
        #expect(outcome.by === tree.grid && outcome.responder == "receiveEvent")
        #expect(log.lines.isEmpty)
    }

    @Test func handleEventAlwaysConsumesEvenWhenBodySaysNotHandled() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.grid, .handleEvent) { _, _ in .notHandled }
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(outcome.handled && outcome.by === tree.grid)
    }

    @Test func transformEventReplacesTheValueForLaterResponders() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .transformEvent, T.itemSelected) { _, _ in .value(value(T.firstEvent, ["n": "1"])) }
        on(tree.grid, .handleEvent, T.itemSelected)
        on(tree.root, .handleEvent, T.firstEvent)
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(outcome.by === tree.root)
        #expect(outcome.value.description == "FirstEvent{n=\"1\"}")
    }

    @Test func errorRespondersDoNotSeeEventsAndEventRespondersDoNotSeeErrors() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .handleError, log: log, name: "handleError")
        on(tree.item, .handleEvent, log: log, name: "handleEvent")
        try world.trigger(value(T.itemSelected), from: tree.item)
        try world.report(value(T.failure), from: tree.item)
        #expect(log.lines == ["handleEvent", "handleError"])
    }

    @Test func receiveTransformAndHandleErrorBehaveLikeTheirEventCounterparts() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .receiveError) { _, _ in .notHandled }
        on(tree.item, .transformError, T.failure) { _, _ in .value(value(T.otherFailure)) }
        on(tree.grid, .handleError, T.failure)
        on(tree.root, .receiveError, T.otherFailure) { _, _ in .handled }
        let outcome = try world.report(value(T.failure), from: tree.item)
        #expect(outcome.by === tree.root && outcome.responder == "receiveError")
        #expect(outcome.value.type === T.otherFailure)
    }

    @Test func pathIsFixedWhenTheDispatchStarts() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        let elsewhere = Node(name: "Elsewhere")
        on(elsewhere, .receiveEvent, log: log, name: "elsewhere")
        on(tree.item, .receiveEvent) { _, _ in
            try! elsewhere.add(tree.item)
            tree.grid.remove()
            return .notHandled
        }
        on(tree.grid, .receiveEvent, log: log, name: "grid")
        on(tree.root, .receiveEvent, log: log, name: "root")
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["grid", "root"])
        #expect(outcome.trace.path.map(\.name) == ["Item", "Grid", "Root"])
    }

    @Test func eachDispatchUsesTheTreeAsItIsWhenItStarts() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.root, .handleEvent)
        let first = try world.trigger(value(T.itemSelected), from: tree.item).trace
        let again = try world.trigger(value(T.itemSelected), from: tree.item).trace
        #expect(again.path.map(\.name) == ["Item", "Grid", "Root"])
        try tree.root.add(tree.item)
        let moved = try world.trigger(value(T.itemSelected), from: tree.item).trace
        #expect(moved.path.map(\.name) == ["Item", "Root"])
        let top = Node(name: "Top")
        on(top, .handleEvent)
        try top.add(tree.root)
        let raised = try world.trigger(value(T.itemSelected), from: tree.item).trace
        #expect(raised.path.map(\.name) == ["Item", "Root", "Top"])
        try tree.grid.add(tree.item)
        tree.root.remove()
        let detached = try world.trigger(value(T.itemSelected), from: tree.item).trace
        #expect(detached.path.map(\.name) == ["Item", "Grid", "Root"])
        let fromGrid = try world.trigger(value(T.itemSelected), from: tree.grid).trace
        #expect(fromGrid.path.map(\.name) == ["Grid", "Root"])
        #expect(first.path.map(\.name) == ["Item", "Grid", "Root"])
        #expect(raised.path.map(\.name) == ["Item", "Root", "Top"])
    }

    @Test func entryAddedToAnEmptyUnreachedNodeRunsAndToAnEmptyPassedNodeWaits() throws {
        let chain = (0..<5).map { Node(name: "N\($0)") }
        for (child, parent) in zip(chain, chain.dropFirst()) { try parent.add(child) }
        let log = Log()
        let world = World()
        on(chain[2], .receiveEvent, once: true) { _, _ in
            on(chain[1], .receiveEvent, log: log, name: "passed")
            on(chain[3], .receiveEvent, log: log, name: "unreached")
            return .notHandled
        }
        on(chain[4], .handleEvent)
        try world.trigger(value(T.itemSelected), from: chain[0])
        #expect(log.lines == ["unreached"])
        log.lines = []
        let trace = try world.trigger(value(T.itemSelected), from: chain[0]).trace
        #expect(log.lines == ["passed", "unreached"])
        #expect(
            trace.description == """
                event ItemSelected{} from N0
                  N1           #1 receiveEvent                 passed
                  N3           #1 receiveEvent                 passed
                  N4           #1 handleEvent                  handled
                """)
    }

    @Test func entryRemovedBeforeItsTurnDoesNotRun() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .receiveEvent) { _, _ in
            tree.item.removeResponder(id: "later")
            tree.root.removeResponder(id: "up")
            return .notHandled
        }
        on(tree.item, .receiveEvent, id: "later", log: log, name: "later")
        on(tree.root, .receiveEvent, id: "up", log: log, name: "up")
        try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines.isEmpty)
    }

    @Test func entryAddedToUnreachedNodeRunsButOneAddedToCurrentNodeWaits() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .receiveEvent, once: true) { _, _ in
            on(tree.item, .receiveEvent, log: log, name: "current")
            on(tree.root, .receiveEvent, log: log, name: "unreached")
            return .notHandled
        }
        try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["unreached"])
        log.lines = []
        try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["current", "unreached"])
    }

    @Test func onceEntryIsRemovedJustBeforeItRuns() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .receiveEvent, T.other, once: true, log: log, name: "typedOnce")
        on(tree.item, .receiveEvent, once: true, log: log, name: "once") { _, context in
            #expect(!tree.item.responders.contains { $0 === context.entry })
            return .notHandled
        }
        try world.trigger(value(T.itemSelected), from: tree.item)
        try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["once"])
        #expect(tree.item.responders.count == 1)
    }

    @Test func removeResponderByIdReportsWhetherSomethingWasRemoved() {
        let node = Node(name: "N")
        on(node, .receiveEvent, id: "a")
        on(node, .handleEvent, id: "b")
        #expect(node.removeResponder(id: "a"))
        #expect(!node.removeResponder(id: "a"))
        #expect(node.responders.map(\.id) == ["b"])
    }

    @Test func contextGivesNodeOriginAndPath() throws {
        let tree = SampleTree()
        let world = World()
        var seen: [String] = []
        on(tree.grid, .handleEvent) { _, context in
            seen = [
                context.node.description, context.origin.description,
                context.path.map(\.description).joined(separator: ","),
            ]
            return .handled
        }
        try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(seen == ["Grid", "Item#b", "Item#b,Grid,Root"])
    }

    @Test func triggerRejectsErrorsAndReportRejectsEvents() {
        let node = Node(name: "N")
        let world = World()
        #expect(throws: EngineError.self) { try world.trigger(value(T.failure), from: node) }
        #expect(throws: EngineError.self) { try world.report(value(T.other), from: node) }
    }
}
