import ResponderEngine
import Testing

@Suite struct ConversionTests {
    @Test func throwInEventResponderStartsErrorAtNextEntry() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .handleError, log: log, name: "earlierError")
        on(tree.item, .handleEvent) { _, _ in .thrown(value(T.failure)) }
        on(tree.item, .receiveEvent, log: log, name: "laterEvent")
        on(tree.item, .receiveError, log: log, name: "laterError")
        on(tree.grid, .handleError, T.failure, log: log, name: "gridError")
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(log.lines == ["laterError", "gridError"])
        #expect(outcome.handled && outcome.by === tree.grid && outcome.responder == "handleError")
        #expect(outcome.value.type === T.failure)
    }

    @Test func catchErrorEventStartsAtNextEntry() throws {
        let tree = SampleTree()
        let log = Log()
        let world = World()
        on(tree.item, .handleEvent, log: log, name: "earlierEvent")
        on(tree.item, .catchError, T.failure) { _, _ in .value(value(T.other)) }
        on(tree.item, .handleError, log: log, name: "laterError")
        on(tree.item, .receiveEvent, log: log, name: "laterEvent")
        on(tree.root, .handleEvent, T.other, log: log, name: "rootEvent")
        let outcome = try world.report(value(T.subFailure), from: tree.item)
        #expect(log.lines == ["laterEvent", "rootEvent"])
        #expect(outcome.value.type === T.other && outcome.by === tree.root)
    }

    @Test func typedCatchErrorLetsOtherErrorsPass() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .catchError, T.failure) { _, _ in .value(value(T.other)) }
        let outcome = try world.report(value(T.otherFailure), from: tree.item)
        #expect(!outcome.handled && outcome.value.type === T.otherFailure)
    }

    @Test func throwInErrorResponderReplacesErrorWithOldOneAsCause() throws {
        let tree = SampleTree()
        let world = World()
        let original = value(T.failure)
        on(tree.item, .receiveError) { _, _ in .thrown(value(T.otherFailure)) }
        on(tree.grid, .handleError, T.otherFailure)
        let outcome = try world.report(original, from: tree.item)
        #expect(outcome.by === tree.grid)
        #expect(outcome.value.type === T.otherFailure)
        #expect(outcome.value.cause === original)
    }

    @Test func throwInsideCatchErrorContinuesAsErrorWithCause() throws {
        let tree = SampleTree()
        let world = World()
        let original = value(T.failure)
        on(tree.item, .catchError) { _, _ in .thrown(value(T.otherFailure)) }
        on(tree.item, .handleEvent)
        on(tree.root, .handleError)
        let outcome = try world.report(original, from: tree.item)
        #expect(outcome.by === tree.root && outcome.value.cause === original)
    }

    @Test func rethrowingTheSameErrorDoesNotMakeItItsOwnCause() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .receiveError) { error, _ in .thrown(error) }
        let outcome = try world.report(value(T.failure), from: tree.item)
        #expect(outcome.value.cause == nil)
    }

    @Test func outcomeFollowsValueAcrossConversions() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .handleEvent) { _, _ in .thrown(value(T.failure)) }
        on(tree.root, .handleError)
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(outcome.handled && outcome.value.kind == .error && outcome.responder == "handleError")
    }

    @Test func transformReturningWrongKindBecomesRuntimeErrorAtNextEntry() throws {
        let tree = SampleTree()
        let world = World()
        var messages: [String] = []
        world.makeRuntimeError = { message, node in
            messages.append("\(node): \(message)")
            return value(T.otherFailure)
        }
        on(tree.item, .transformEvent) { _, _ in .value(value(T.failure)) }
        on(tree.item, .handleError, T.otherFailure)
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(outcome.by === tree.item && outcome.responder == "handleError")
        #expect(messages == ["Item#b: transformEvent at Item#b returned error Failure{} (an event expected)"])
    }

    @Test func defaultRuntimeErrorCarriesMessage() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .receiveEvent) { event, _ in .value(event) }
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(outcome.value.type === ValueType.runtimeError)
        #expect(
            outcome.value.payload?.stringField("message")
                == "receiveEvent at Item#b returned event ItemSelected{} (true, false or nil expected)")
    }

    @Test func catchErrorReturningAnErrorIsInvalid() throws {
        let tree = SampleTree()
        let world = World()
        let original = value(T.failure)
        on(tree.item, .catchError) { error, _ in .value(error) }
        let outcome = try world.report(original, from: tree.item)
        #expect(outcome.value.type === ValueType.runtimeError && outcome.value.cause === original)
    }

    @Test func throwingAnEventIsConvertedToRuntimeError() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.item, .receiveEvent) { _, _ in .thrown(value(T.other)) }
        let outcome = try world.trigger(value(T.itemSelected), from: tree.item)
        #expect(outcome.value.type === ValueType.runtimeError)
    }
}
