import ResponderEngine
import Testing

/// Root(publisher) > [A(sub) > [B(sub) > [C(sub)]], D(sub), E > [F(sub) > [G(sub)]]]
private struct PublishingTree {
    let root = Node(name: "Root")
    let log = Log()
    let nodes: [String: Node]

    init(destination: PublishingDestination) {
        var nodes: [String: Node] = [:]
        for name in ["A", "B", "C", "D", "E", "F", "G"] { nodes[name] = Node(name: name) }
        try! root.add(nodes["A"]!)
        try! nodes["A"]!.add(nodes["B"]!)
        try! nodes["B"]!.add(nodes["C"]!)
        try! root.add(nodes["D"]!)
        try! root.add(nodes["E"]!)
        try! nodes["E"]!.add(nodes["F"]!)
        try! nodes["F"]!.add(nodes["G"]!)
        self.nodes = nodes
        for name in ["A", "B", "C", "D", "F", "G"] {
            let log = log
            nodes[name]!.subscribe(type: T.base) { event, context in
                log.add("\(context.node) \(event)")
                return .handled
            }
        }
        publisher = root.publisher(type: T.base, destination: destination)
    }

    private(set) var publisher: Publisher!
}

@Suite struct PublishingTests {
    @Test func lastLevelReachesEverySubscriberAtTheDeepestLevel() throws {
        let tree = PublishingTree(destination: .lastLevel)
        let world = World()
        #expect(try tree.publisher.publish(value(T.sub), in: world) == 1)
        #expect(tree.log.lines == ["C Sub{}"])
    }

    @Test func firstLevelReachesOutermostSubscribersInDocumentOrder() throws {
        let tree = PublishingTree(destination: .firstLevel)
        let world = World()
        #expect(try world.publish(value(T.base), through: tree.publisher) == 3)
        #expect(tree.log.lines == ["A Base{}", "D Base{}", "F Base{}"])
    }

    @Test func allLevelsReachesEverySubscriberInDocumentOrder() throws {
        let tree = PublishingTree(destination: .allLevels)
        let world = World()
        #expect(try world.publish(value(T.base), through: tree.publisher) == 6)
        #expect(tree.log.lines.map { String($0.prefix(1)) } == ["A", "B", "C", "D", "F", "G"])
    }

    @Test func deepestLevelIncludesEverySubscriberAtThatLevel() throws {
        let tree = PublishingTree(destination: .lastLevel)
        let world = World()
        let extra = Node(name: "H")
        try tree.nodes["G"]!.add(extra)
        let log = tree.log
        extra.subscribe(type: T.base) { _, _ in
            log.add("H")
            return .handled
        }
        #expect(try world.publish(value(T.base), through: tree.publisher) == 2)
        #expect(tree.log.lines == ["C Base{}", "H"])
    }

    @Test func subscribersOfUnrelatedTypesAreNotReachedAndDoNotCountAsLevels() throws {
        let tree = PublishingTree(destination: .firstLevel)
        let world = World()
        let other = tree.nodes["A"]!.publisher(type: T.other)
        #expect(try world.publish(value(T.other), through: other) == 0)
        let bOnly = Node(name: "X")
        try tree.root.add(bOnly, at: 0)
        bOnly.subscribe(type: T.other) { _, _ in .handled }
        #expect(try world.publish(value(T.base), through: tree.publisher) == 3)
    }

    @Test func publishedEventsNeverBubble() throws {
        let tree = PublishingTree(destination: .allLevels)
        let world = World()
        on(tree.root, .handleEvent, log: tree.log, name: "bubbled")
        try world.publish(value(T.base), through: tree.publisher)
        #expect(!tree.log.lines.contains("bubbled"))
    }

    @Test func publishRejectsEventsOfAnotherType() {
        let tree = PublishingTree(destination: .allLevels)
        let world = World()
        #expect(throws: EngineError.self) { try world.publish(value(T.other), through: tree.publisher) }
    }

    @Test func subscriberErrorIsReportedFromItsNode() throws {
        let node = Node(name: "Cell")
        let root = Node(name: "Root")
        let world = World()
        let log = Log()
        try root.add(node)
        let publisher = root.publisher(type: T.other)
        node.subscribe(type: T.other) { _, _ in .thrown(value(T.failure)) }
        on(root, .handleError, T.failure, log: log, name: "root handled")
        #expect(try world.publish(value(T.other), through: publisher) == 1)
        #expect(log.lines == ["root handled"])
        #expect(world.lastTrace?.steps.map(\.decision) == [.threw])
    }

    @Test func publishTraceListsReachedSubscribers() throws {
        let tree = PublishingTree(destination: .firstLevel)
        let world = World()
        try world.publish(value(T.base), through: tree.publisher)
        #expect(
            world.lastTrace?.description == """
                publish Base{} from Root
                  A            #1 subscribe(Base)              handled
                  D            #1 subscribe(Base)              handled
                  F            #1 subscribe(Base)              handled
                """)
    }
}
