import ResponderEngine
import Testing

@Suite struct MountingTests {
    @Test func mountRunsAppearHooksInDocumentOrderAndSetsWorld() throws {
        let tree = SampleTree()
        let world = World()
        let log = Log()
        world.appearHook = { log.add("appear \($0)") }
        try world.mount(tree.root)
        #expect(log.lines == ["appear Root", "appear Grid", "appear Item#b"])
        #expect(world.root === tree.root && tree.item.isMounted && tree.item.world === world)
    }

    @Test func addAndRemoveInMountedTreeRunHooks() throws {
        let tree = SampleTree()
        let world = World()
        let log = Log()
        try world.mount(tree.root)
        world.appearHook = { log.add("appear \($0)") }
        world.disappearHook = { log.add("disappear \($0)") }
        world.structureDidChange = { log.add("changed \($0)") }
        let cell = Node(name: "Cell")
        try cell.add(Node(name: "Label"))
        try tree.grid.add(cell)
        tree.grid.remove()
        #expect(
            log.lines == [
                "appear Cell", "appear Label", "changed Grid",
                "disappear Grid", "disappear Item#b", "disappear Cell", "disappear Label", "changed Root",
            ])
        #expect(!cell.isMounted && tree.root.isMounted)
    }

    @Test func mountingAnotherRootUnmountsThePrevious() throws {
        let world = World()
        let first = Node(name: "First")
        let second = Node(name: "Second")
        let log = Log()
        world.disappearHook = { log.add("disappear \($0)") }
        try world.mount(first)
        try world.mount(second)
        #expect(log.lines == ["disappear First"] && !first.isMounted && world.root === second)
    }

    @Test func mountingANodeWithAParentThrows() {
        let tree = SampleTree()
        let world = World()
        #expect(throws: EngineError.notARoot(node: "Grid")) { try world.mount(tree.grid) }
    }

    @Test func resetClearsTreeWarningsAlertAndTrace() throws {
        let tree = SampleTree()
        let world = World()
        var resetCalled = false
        world.resetHook = { resetCalled = true }
        try world.mount(tree.root)
        tree.root.addResponder(ResponderEntry(kind: .handleAlertErrors))
        try world.trigger(value(T.other), from: tree.item)
        try world.report(value(T.alertable, ["message": "m"]), from: tree.item)
        #expect(world.warnings.count == 1 && world.alert != nil && world.lastTrace != nil)
        world.reset()
        #expect(world.root == nil && world.warnings.isEmpty && world.alert == nil)
        #expect(world.lastTrace == nil && !tree.root.isMounted && resetCalled)
    }

    @Test func eventsCanBeTriggeredInUnmountedTrees() throws {
        let tree = SampleTree()
        let world = World()
        on(tree.root, .handleEvent)
        #expect(try world.trigger(value(T.other), from: tree.item).handled)
    }
}
