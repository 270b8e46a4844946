import ResponderEngine
import Testing

@Suite struct TapAndAlertTests {
    @Test func eventButtonTapTriggersFromTheButtonsFirstEntry() throws {
        let root = Node(name: "Root")
        let button = Node(name: "EventButton")
        let world = World()
        let log = Log()
        try root.add(button)
        button.onTapGesture(action: .trigger(value(T.itemSelected)))
        on(button, .receiveEvent, log: log, name: "button")
        on(root, .handleEvent, T.itemSelected, log: log, name: "root")
        let outcome = try #require(try world.tap(button))
        #expect(outcome.handled && outcome.by === root)
        #expect(log.lines == ["button", "root"])
        #expect(world.lastTrace === outcome.trace)
    }

    @Test func producedEventIsEvaluatedAtEachTap() throws {
        let button = Node(name: "EventButton")
        let world = World()
        var taps = 0
        button.onTapGesture(
            action: .triggerProduced {
                taps += 1
                return value(T.itemSelected, ["tap": "\(taps)"])
            })
        on(button, .handleEvent)
        #expect(try world.tap(button)?.value.description == "ItemSelected{tap=\"1\"}")
        #expect(try world.tap(button)?.value.description == "ItemSelected{tap=\"2\"}")
    }

    @Test func tapRunsOnlyActionsForTheMatchingCount() throws {
        let node = Node(name: "N")
        let world = World()
        let log = Log()
        node.onTapGesture(
            count: 1,
            action: .perform {
                log.add("single")
                return true
            })
        node.onTapGesture(
            count: 2,
            action: .perform {
                log.add("double A")
                return true
            })
        node.onTapGesture(
            count: 2,
            action: .perform {
                log.add("double B")
                return true
            })
        #expect(try world.tap(node, count: 2) == nil)
        #expect(log.lines == ["double A", "double B"])
    }

    @Test func tapWithACountNoActionHasThrows() {
        let node = Node(name: "N")
        let world = World()
        let log = Log()
        node.onTapGesture(
            count: 1,
            action: .perform {
                log.add("single")
                return true
            })
        node.onTapGesture(
            count: 2,
            action: .perform {
                log.add("double")
                return true
            })
        #expect(throws: EngineError.noTapActionForCount(node: "N", count: 3, counts: [1, 2])) {
            try world.tap(node, count: 3)
        }
        #expect(log.lines.isEmpty)
    }

    @Test func tapOnNodeWithoutTapActionsThrows() {
        let world = World()
        #expect(throws: EngineError.noTapAction(node: "Text#t")) {
            try world.tap(Node(name: "Text", id: "t"))
        }
    }

    @Test func strictViolationSwallowedInsidePerformStillAbortsTap() {
        let node = Node(name: "N")
        let world = World()
        node.safetyLevel = .strict
        node.onTapGesture(
            action: .perform {
                _ = try? world.trigger(value(T.other), from: node)
                return true
            })
        #expect(throws: StrictViolation.self) { try world.tap(node) }
    }

    @Test func handleAlertErrorsPresentsAlertableErrorsAndLetsOthersPass() throws {
        let tree = SampleTree()
        let world = World()
        tree.grid.addResponder(ResponderEntry(kind: .handleAlertErrors))
        on(tree.root, .handleError, T.failure)
        let passed = try world.report(value(T.failure), from: tree.item)
        #expect(passed.by === tree.root && world.alert == nil)
        let alerted = try world.report(value(T.alertable, ["message": "Disk full"]), from: tree.item)
        #expect(alerted.by === tree.grid && alerted.responder == "handleAlertErrors")
        let alert = try #require(world.alert)
        #expect(alert.title == "Error" && alert.message == "Disk full" && alert.button == "Okay")
        #expect(alert.node === tree.grid)
    }

    @Test func secondAlertReplacesTheFirstAndDismissClearsIt() throws {
        let node = Node(name: "N")
        let world = World()
        node.addResponder(ResponderEntry(kind: .handleAlertErrors))
        try world.report(value(T.alertable, ["message": "one"]), from: node)
        try world.report(value(T.alertable, ["message": "two", "title": "Oops"]), from: node)
        #expect(world.alert?.message == "two" && world.alert?.title == "Oops")
        world.dismissAlert()
        #expect(world.alert == nil)
    }

    @Test func alertableFlagIsInheritedBySubtypes() {
        let sub = ValueType(name: "Sub", kind: .error, parent: T.alertable)
        #expect(sub.isAlertable)
        #expect(!T.failure.isAlertable)
    }
}
