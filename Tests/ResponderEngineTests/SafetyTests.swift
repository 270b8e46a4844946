import ResponderEngine
import Testing

@Suite struct SafetyTests {
    @Test func unhandledEventAtRootIsReportedWithItsOrigin() throws {
        let tree = SampleTree()
        let harness = Harness()
        let outcome = try harness.world.trigger(
            value(T.itemSelected, ["item": "b"]), from: tree.item,
            location: here)
        #expect(!outcome.handled)
        #expect(
            harness.diagnostics == [
                "warning: test.lua:7: unhandled event ItemSelected{item=\"b\"} from Item#b (path: Item#b > Grid > Root)"
            ])
        let warning = try #require(harness.world.warnings.first)
        #expect(warning.kind == .unhandledEvent && warning.node === tree.item && warning.location == here)
        #expect(warning.value?.type === T.itemSelected)
    }

    @Test(arguments: [SafetyLevel.relaxed, .strict, .disabled])
    func unhandledErrorFollowsTheLevelAtTheOrigin(level: SafetyLevel) throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.grid.safetyLevel = level
        tree.root.safetyLevel = .disabled
        let run = { try harness.world.report(value(T.failure), from: tree.item) }
        switch level {
        case .relaxed:
            #expect(try !run().handled)
            #expect(harness.world.warnings.map(\.kind) == [.unhandledError])
            #expect(harness.diagnostics.first?.hasPrefix("warning: unhandled error Failure{} from Item#b") == true)
        case .strict:
            let error = try #require(throws: StrictViolation.self) { try run() }
            #expect(error.violation.kind == .unhandledError)
            #expect(harness.world.warnings.isEmpty && harness.diagnostics.isEmpty)
        case .disabled:
            #expect(try !run().handled)
            #expect(harness.world.warnings.isEmpty && harness.diagnostics.isEmpty)
        }
    }

    @Test func worldDefaultLevelAppliesWhenNoNodeSetsOne() throws {
        let node = Node(name: "N")
        let harness = Harness(level: .strict)
        #expect(throws: StrictViolation.self) { try harness.world.trigger(value(T.other), from: node) }
        node.safetyLevel = .relaxed
        try harness.world.trigger(value(T.other), from: node)
        #expect(harness.world.warnings.count == 1)
        harness.world.clearWarnings()
        #expect(harness.world.warnings.isEmpty)
    }

    @Test func undeclaredEventPassingTriggersIsReported() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.grid.addResponder(.declaration(.triggers, [T.itemSelected, T.firstEvent], location: here))
        on(tree.root, .handleEvent)
        try harness.world.trigger(value(T.itemSelected), from: tree.item)
        try harness.world.trigger(value(T.sub), from: tree.item)
        #expect(harness.world.warnings.map(\.kind) == [.undeclaredEvent])
        #expect(
            harness.diagnostics == [
                "warning: test.lua:7: undeclared event Sub{} passed triggers(ItemSelected, FirstEvent) at Grid"
            ])
        #expect(harness.world.warnings.first?.node === tree.grid)
    }

    @Test func declaringAParentTypeCoversSubtypes() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.grid.addResponder(.declaration(.triggers, [T.base]))
        on(tree.root, .handleEvent)
        try harness.world.trigger(value(T.sub), from: tree.item)
        #expect(harness.world.warnings.isEmpty)
    }

    @Test func nestedTriggersInSubtreeAndEarlierOnSameNodeAreAggregated() throws {
        let tree = SampleTree()
        let harness = Harness()
        let sibling = Node(name: "Sibling")
        try tree.grid.add(sibling)
        sibling.addResponder(.declaration(.triggers, [T.other]))
        tree.item.addResponder(.declaration(.triggers, [T.itemSelected]))
        tree.root.addResponder(.declaration(.triggers, [T.firstEvent]))
        tree.root.addResponder(.declaration(.triggers, [T.base]))
        on(tree.root, .handleEvent)
        try harness.world.trigger(value(T.other), from: sibling)
        try harness.world.trigger(value(T.firstEvent), from: tree.grid)
        try harness.world.trigger(value(T.itemSelected), from: tree.item)
        #expect(harness.world.warnings.isEmpty)
        try harness.world.trigger(value(T.sub), from: tree.grid)
        // The first root declaration (FirstEvent) does not see later same-node declarations.
        #expect(harness.world.warnings.map(\.message) == ["undeclared event Sub{} passed triggers(FirstEvent) at Root"])
    }

    @Test func nestedReportsAreHonouredForErrors() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.addResponder(.declaration(.reports, [T.otherFailure]))
        tree.grid.addResponder(.declaration(.reports, [T.failure]))
        on(tree.root, .handleError)
        try harness.world.report(value(T.otherFailure), from: tree.item)
        try harness.world.report(value(T.subFailure), from: tree.grid)
        #expect(harness.world.warnings.isEmpty)
        try harness.world.report(value(ValueType.runtimeError), from: tree.grid)
        #expect(harness.world.warnings.map(\.kind) == [.undeclaredError])
    }

    @Test func undeclaredCheckUsesLevelAtTheDeclaringNode() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.grid.addResponder(.declaration(.triggers, [T.itemSelected]))
        tree.grid.safetyLevel = .strict
        tree.item.safetyLevel = .relaxed
        on(tree.root, .handleEvent)
        let error = try #require(throws: StrictViolation.self) {
            try harness.world.trigger(value(T.other), from: tree.item)
        }
        #expect(error.violation.kind == .undeclaredEvent && error.violation.node === tree.grid)
    }

    @Test func missingResponderIsReportedPerTypeAtMount() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.addResponder(.declaration(.triggers, [T.itemSelected, T.other], location: here))
        on(tree.grid, .handleEvent, T.other)
        on(tree.root, .handleEvent)
        try harness.world.mount(tree.root)
        #expect(harness.world.warnings.map(\.kind) == [.missingResponder])
        #expect(
            harness.diagnostics == [
                "warning: test.lua:7: missing responder: Item#b declares triggers(ItemSelected, Other) but no typed responder for ItemSelected is above it"
            ])
    }

    @Test func laterEntryOnSameNodeSatisfiesButEarlierDoesNot() throws {
        let harness = Harness()
        let early = Node(name: "Early")
        let late = Node(name: "Late")
        on(early, .handleEvent, T.other)
        early.addResponder(.declaration(.triggers, [T.other]))
        late.addResponder(.declaration(.triggers, [T.other]))
        on(late, .receiveEvent, T.other)
        try harness.world.mount(early)
        try harness.world.mount(late)
        #expect(harness.world.warnings.map(\.node.name) == ["Early"])
    }

    @Test func parentTypeAndTypedCatchErrorSatisfyMissingResponderCheck() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.addResponder(.declaration(.triggers, [T.sub]))
        tree.item.addResponder(.declaration(.reports, [T.subFailure]))
        on(tree.grid, .transformEvent, T.base) { event, _ in .value(event) }
        on(tree.root, .catchError, T.failure) { _, _ in .value(value(T.other)) }
        try harness.world.mount(tree.root)
        #expect(harness.world.warnings.isEmpty)
    }

    @Test func untypedRespondersDoNotSatisfyMissingResponderCheck() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.addResponder(.declaration(.reports, [T.failure]))
        on(tree.root, .handleError)
        on(tree.root, .handleEvent, T.other)
        tree.root.addResponder(ResponderEntry(kind: .handleAlertErrors))
        try harness.world.mount(tree.root)
        #expect(harness.world.warnings.map(\.kind) == [.missingResponder])
    }

    @Test func missingResponderCheckSkippedWhenExplicitRespondersNotRequired() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.addResponder(.declaration(.triggers, [T.other]))
        tree.grid.requireExplicitResponders = false
        try harness.world.mount(tree.root)
        #expect(harness.world.warnings.isEmpty)
        tree.item.requireExplicitResponders = true
        try harness.world.mount(tree.root)
        #expect(harness.world.warnings.count == 1)
    }

    @Test func addingSubtreeToMountedTreeRunsChecksForNewSubtreeOnly() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.addResponder(.declaration(.triggers, [T.other]))
        try harness.world.mount(tree.root)
        #expect(harness.world.warnings.count == 1)
        let cell = Node(name: "Cell")
        cell.addResponder(.declaration(.triggers, [T.firstEvent]))
        try tree.grid.add(cell)
        #expect(harness.world.warnings.map(\.node.name) == ["Item", "Cell"])
        let unmounted = Node(name: "Loose")
        try unmounted.add(Node(name: "Child"))
        #expect(harness.world.warnings.count == 2)
    }

    @Test func strictCheckAtMountThrowsFromMount() {
        let tree = SampleTree()
        let harness = Harness(level: .strict)
        tree.item.addResponder(.declaration(.triggers, [T.other]))
        #expect(throws: StrictViolation.self) { try harness.world.mount(tree.root) }
        #expect(harness.world.pendingAbort == nil)
    }

    @Test func subscriberWithoutPublisherIsReportedAtMount() throws {
        let tree = SampleTree()
        let harness = Harness()
        tree.item.subscribe(type: T.sub, location: here) { _, _ in .handled }
        tree.grid.subscribe(type: T.other) { _, _ in .handled }
        tree.root.publisher(type: T.base)
        try harness.world.mount(tree.root)
        #expect(harness.diagnostics == ["warning: subscriber for Other at Grid has no publisher above it"])
        #expect(harness.world.warnings.first?.kind == .subscriberWithoutPublisher)
    }

    @Test func bridgeCanReportUnhandledActionUnderTheSamePolicy() throws {
        let node = Node(name: "Button")
        let harness = Harness()
        let violation = Violation(
            kind: .unhandledAction, message: "no target for 'save' from Button",
            node: node, location: here)
        try harness.world.reportViolation(violation)
        #expect(harness.diagnostics == ["warning: test.lua:7: no target for 'save' from Button"])
        node.safetyLevel = .strict
        #expect(throws: StrictViolation.self) { try harness.world.reportViolation(violation) }
        node.safetyLevel = .disabled
        try harness.world.reportViolation(violation)
        #expect(harness.world.warnings.count == 1)
    }
}
