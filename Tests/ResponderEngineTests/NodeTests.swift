import ResponderEngine
import Testing

@Suite struct NodeTests {
    @Test func descriptionAndPath() {
        let tree = SampleTree()
        #expect(tree.item.description == "Item#b" && tree.grid.description == "Grid")
        #expect(tree.item.path() == "Root > Grid > Item#b")
    }

    @Test func addMovesChildFromPreviousParentAndInsertsAtPosition() throws {
        let tree = SampleTree()
        let first = Node(name: "First")
        try tree.root.add(first, at: 0)
        try tree.root.add(tree.item, at: 1)
        #expect(tree.root.children.map(\.name) == ["First", "Item", "Grid"])
        #expect(tree.grid.children.isEmpty && tree.item.parent === tree.root)
    }

    @Test func addingIntoOwnSubtreeWouldCreateACycle() {
        let tree = SampleTree()
        #expect(throws: EngineError.cycle) { try tree.item.add(tree.root) }
        #expect(throws: EngineError.cycle) { try tree.item.add(tree.item) }
        #expect(EngineError.cycle.description == "would create a cycle")
    }

    @Test func removeDetaches() {
        let tree = SampleTree()
        tree.grid.remove()
        #expect(tree.grid.parent == nil && tree.root.children.isEmpty)
        #expect(tree.item.path() == "Grid > Item#b")
    }

    @Test func findAndFindAllSearchSubtreeIncludingSelfInDocumentOrder() throws {
        let tree = SampleTree()
        let second = Node(name: "Item", id: "c")
        try tree.root.add(second)
        #expect(tree.root.find("Item") === tree.item)
        #expect(tree.root.find("#c") === second)
        #expect(tree.root.find("Item#c") === second)
        #expect(tree.root.find("Grid#c") == nil)
        #expect(tree.root.find("Root") === tree.root)
        #expect(tree.root.findAll("Item").map(\.description) == ["Item#b", "Item#c"])
        #expect(tree.grid.findAll("Item").count == 1)
    }

    @Test func parentIsNotKeptAliveByChildren() {
        let child = Node(name: "Child")
        do {
            let parent = Node(name: "Parent")
            try! parent.add(child)
            #expect(child.parent === parent)
        }
        #expect(child.parent == nil)
    }

    @Test func safetyLevelAndExplicitRequirementAreInheritedNearestWins() {
        let tree = SampleTree()
        #expect(tree.item.effectiveSafetyLevel(default: .relaxed) == .relaxed)
        tree.root.safetyLevel = .strict
        tree.grid.safetyLevel = .disabled
        #expect(tree.item.effectiveSafetyLevel(default: .relaxed) == .disabled)
        #expect(tree.root.effectiveSafetyLevel(default: .relaxed) == .strict)
        #expect(tree.item.effectiveRequireExplicit)
        tree.grid.requireExplicitResponders = false
        #expect(!tree.item.effectiveRequireExplicit && tree.root.effectiveRequireExplicit)
    }

    @Test func valueTypeAncestry() {
        let grand = ValueType(name: "Grand", kind: .event, parent: T.sub)
        #expect(T.base.isSame(orAncestorOf: grand) && T.sub.isSame(orAncestorOf: grand))
        #expect(grand.isSame(orAncestorOf: grand) && !grand.isSame(orAncestorOf: T.base))
        #expect(!T.other.isSame(orAncestorOf: grand))
    }

    @Test func valueDescriptionSortsFields() {
        #expect(value(T.other, ["b": "2", "a": "x\"y"]).description == "Other{a=\"x\\\"y\", b=\"2\"}")
        #expect(value(T.other).description == "Other{}")
        #expect(FieldsPayload(rendered: ["n": "1", "s": "\"t\""]).stringField("s") == "t")
    }
}
