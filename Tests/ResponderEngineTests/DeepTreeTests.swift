import ResponderEngine
import Testing

/// Issue 7 item 2 (deep trees) and the `#id` index, on the engine alone.
@Suite struct DeepTreeTests {
    /// A chain `Root > N > N > …` of `depth` nodes below the root; returns root and leaf.
    static func chain(_ depth: Int) -> (root: Node, leaf: Node) {
        let root = Node(name: "Root")
        var node = root
        for _ in 0..<depth {
            let child = Node(name: "N")
            try? node.add(child)
            node = child
        }
        return (root, node)
    }

    @Test func aMillionDeepChainIsWalkedAndReleasedWithoutRecursion() throws {
        var (root, leaf): (Node?, Node?) = Self.chain(1_000_000)
        leaf?.id = "leaf"
        let world = World()
        try world.mount(root!)
        var count = 0
        root!.forEachInSubtree { _ in count += 1 }
        #expect(count == 1_000_001)
        #expect(root!.find("#leaf") === leaf)
        #expect(root!.findAll("N").count == 1_000_000)
        let type = ValueType(name: "P", kind: .event)
        root!.addResponder(ResponderEntry(kind: .handleEvent, filter: type))
        #expect(try world.trigger(Value(type: type), from: leaf!).handled)
        _ = try world.publish(Value(type: type), through: root!.publisher(type: type))
        world.reset()
        // the leaf outlives the chain: its parent link is cleared when the chain goes
        let kept = leaf
        leaf = nil
        root = nil
        #expect(kept?.parent == nil)
        #expect(kept?.pathToRoot.count == 1)
    }

    @Test func releasingAChainClearsTheLinksOfSurvivors() {
        // Root > … 100,000 … > Middle > Leaf > … 200,000 … > Deep: drop the root, keep Middle
        // and Deep. Middle loses its parent and keeps its subtree; then drop Middle: the 200,000
        // nodes go (iteratively) and Deep loses its parent.
        var root: Node? = Node(name: "Root")
        var node = root!
        func grow(_ count: Int) {
            for _ in 0..<count {
                let child = Node(name: "N")
                try? node.add(child)
                node = child
            }
        }
        grow(100_000)
        var middle: Node? = Node(name: "Middle")
        try? node.add(middle!)
        node = middle!
        let leaf = Node(name: "Leaf")
        try? node.add(leaf)
        node = leaf
        grow(200_000)
        let deep = Node(name: "Deep")
        try? node.add(deep)
        node = deep
        root = nil
        #expect(middle?.parent == nil)
        #expect(leaf.parent === middle)
        #expect(deep.pathToRoot.count == 200_003)
        middle = nil
        #expect(leaf.parent == nil)
        leaf.forEachInSubtree { _ in }
        #expect(deep.pathToRoot.count == 200_002)
    }

    /// A host's view of which nodes are alive: weak references by address.
    final class Registry {
        private final class Box { weak var node: Node? }
        private var boxes: [UnsafeMutableRawPointer: Box] = [:]
        func track(_ node: Node) {
            let box = Box()
            box.node = node
            boxes[Unmanaged.passUnretained(node).toOpaque()] = box
        }
        func resolve(_ key: UnsafeMutableRawPointer) -> Node? { boxes[key]?.node }
    }

    @Test func findByIDWithAnIndexKeepsDocumentOrderAndScope() throws {
        let registry = Registry()
        let index = NodeIndex { registry.resolve($0) }
        func node(_ name: String, _ id: String? = nil, _ children: [Node] = []) -> Node {
            let n = Node(name: name, id: id)
            for child in children { try? n.add(child) }
            registry.track(n)
            index.register(n)
            return n
        }
        let first = node("Item", "x")
        let second = node("Item", "x")
        let other = node("Other", "y")
        let a = node("A", nil, [first])
        let b = node("B", nil, [second, other])
        let root = node("Root", nil, [a, b])
        #expect(root.find("#x", index: index) === first)
        #expect(b.find("#x", index: index) === second)
        #expect(a.find("#y", index: index) == nil)
        #expect(root.find("Other#x", index: index) == nil)
        #expect(root.find("Other#y", index: index) === other)
        #expect(other.find("#y", index: index) === other)
        // the same answers as the scan
        for selector in ["#x", "#y", "Item#x", "Other#y", "#z"] {
            for start in [root, a, b, first, other] {
                #expect(start.find(selector, index: index) === start.find(selector))
            }
        }
        // moving nodes changes the answer
        try root.add(second, at: 0)
        #expect(root.find("#x", index: index) === second)
        // an id changed after registration is found once registered again
        other.id = "z"
        #expect(root.find("#y", index: index) == nil)
        #expect(root.find("#z", index: index) == nil)
        index.register(other)
        #expect(root.find("#z", index: index) === other)
    }

    @Test func theIndexDoesNotKeepNodesAlive() {
        let registry = Registry()
        let index = NodeIndex { registry.resolve($0) }
        weak var gone: Node?
        do {
            for i in 0..<5_000 {
                let n = Node(name: "Tmp", id: "t\(i % 3)")
                registry.track(n)
                index.register(n)
                if i == 0 { gone = n }
            }
        }
        #expect(gone == nil)
        let kept = Node(name: "Kept", id: "t1")
        registry.track(kept)
        index.register(kept)
        #expect(kept.find("#t1", index: index) === kept)
    }
}
