import ResponderEngine
import Testing

@Suite struct NestingTests {
    @Test func nestedDispatchRunsToCompletionBeforeOuterContinues() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .receiveEvent, T.itemSelected) { _, _ in
            log.add("outer item")
            _ = try? world.trigger(value(T.other), from: tree.grid)
            log.add("outer item done")
            return .notHandled
        }
        on(tree.root, .handleEvent, T.other, log: log, name: "nested root")
        on(tree.root, .handleEvent, T.itemSelected, log: log, name: "outer root")
        try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["outer item", "nested root", "outer item done", "outer root"])
        #expect(world.lastTrace?.initialValue.type === T.itemSelected)
    }

    @Test func nestingDeeperThan100DispatchesThrows() throws {
        let node = Node(name: "N")
        let world = World()
        var depth = 0
        var failure: EngineError?
        on(node, .handleEvent) { event, _ in
            depth += 1
            do { try world.trigger(event, from: node) } catch let error as EngineError {
                failure = error
            } catch {}
            return .handled
        }
        try world.trigger(value(T.other), from: node)
        #expect(depth == 100)
        #expect(failure == .nestedTooDeeply)
        #expect(failure?.description == "dispatch nested too deeply")
        #expect(world.dispatchDepth == 0)
    }

    @Test func strictViolationInNestedDispatchCannotBeSwallowed() throws {
        let tree = SampleTree()
        let world = World()
        let log = Log()
        tree.grid.safetyLevel = .strict
        on(tree.item, .handleEvent, T.itemSelected) { _, _ in
            // The nested event goes unhandled under strict safety; the body "swallows" the error.
            let nested = Result { try world.trigger(value(T.other), from: tree.item) }
            if case .failure(let error) = nested { log.add("caught \(error is StrictViolation)") }
            // Even later calls fail while the abort is pending.
            let again = Result { try world.trigger(value(T.itemSelected), from: tree.root) }
            if case .failure = again { log.add("again refused") }
            return .handled
        }
        #expect(throws: StrictViolation.self) {
            try world.trigger(value(T.itemSelected), from: tree.item)
        }
        #expect(log.lines == ["caught true", "again refused"])
        #expect(world.pendingAbort == nil)
        // The world works again after the outermost call ended.
        on(tree.root, .handleEvent)
        #expect(try world.trigger(value(T.other), from: tree.item).handled)
    }

    @Test func abortedResultUnwindsTheDispatch() {
        let node = Node(name: "N")
        let world = World()
        let log = Log()
        on(node, .receiveEvent) { _, _ in .aborted }
        on(node, .receiveEvent, log: log)
        #expect(throws: EngineError.aborted) { try world.trigger(value(T.other), from: node) }
        #expect(log.lines.isEmpty)
    }

    @Test func performActionScopesAbortsForBridgeActions() throws {
        let node = Node(name: "N")
        let world = World()
        node.safetyLevel = .strict
        #expect(throws: StrictViolation.self) {
            try world.performAction {
                _ = try? world.trigger(value(T.other), from: node)
            }
        }
        #expect(world.pendingAbort == nil)
    }

    @Test func nestedDispatchesKeepTheirOwnTracesAndOnlyTopLevelSetsLastTrace() throws {
        let tree = SampleTree()
        let world = World()
        var nestedTrace: Trace?
        on(tree.item, .handleEvent, T.itemSelected) { _, _ in
            nestedTrace = try? world.trigger(value(T.other), from: tree.grid).trace
            return .handled
        }
        on(tree.root, .handleEvent, T.other)
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(world.lastTrace === outcome.trace)
        #expect(nestedTrace?.initialValue.type === T.other)
        #expect(nestedTrace?.origin === tree.grid)
    }
}
