import ResponderEngine

/// Why a ``TreeGraph`` could not be captured.
public struct TreeGraphError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The message, without the `error: ` prefix.
    public var message: String
    public var description: String { message }

    /// Neither a mounted tree nor a last dispatch to take a tree from.
    public static let nothingMounted = TreeGraphError(
        message: "nothing is mounted: call mount(root) in the script")
}

/// A snapshot of a responder tree and of the last dispatch through it, with two renderers:
/// ``text()`` (an indented tree) and ``dot()`` (Graphviz input). What `responder graph` prints.
///
/// Each node is labelled `Name#id` and lists its responder entries (`#1 receiveEvent`,
/// `#2 handleEvent(ItemSelected)`, `#3 triggers(A, B)`), then its subscribers, publishers and
/// tap actions. The nodes on the last dispatch's path are marked (`◀ origin`, `◀ path`) and the
/// entries the dispatch visited carry their step numbers and decisions, in the order of the
/// trace: one numbering, explained by a legend under each picture.
public struct TreeGraph: Sendable {
    /// One line under a node: an entry, subscriber, publisher or tap action.
    public struct Line: Sendable, Equatable {
        /// E.g. `#2 handleEvent(ItemSelected)`, `subscribe(Refresh)`, `tap: trigger Tapped{}`.
        public var text: String
        /// The last dispatch's steps at this line.
        public var steps: [Step]
    }

    /// One node of the snapshot.
    public struct GraphNode: Sendable, Equatable {
        /// `Name#id`, or `Name`.
        public var label: String
        /// Index of the parent in ``TreeGraph/nodes``; `nil` for the root.
        public var parent: Int?
        /// Indices of the children in ``TreeGraph/nodes``, in order.
        public var children: [Int]
        /// Responder entries, then subscribers, publishers and tap actions.
        public var lines: [Line]
        /// 1-based position on the last dispatch's path (1 = the origin), if on it.
        public var pathPosition: Int?
    }

    /// One step of the last dispatch.
    public struct Step: Sendable, Equatable {
        /// 1-based, in the order of the trace.
        public var number: Int
        /// The node's `Name#id`.
        public var node: String
        /// The entry's 1-based position at arrival (0 for the final `unhandled` step).
        public var index: Int
        /// The entry's label (empty for the final `unhandled` step).
        public var responder: String
        /// What happened: `skipped`, `passed`, `handled`, …
        public var decision: String
        /// The resulting value for `transformed`, `caught` and `threw`.
        public var result: String?

        /// `step 2: handled`, `step 3: transformed → Other{}`.
        public var mark: String { mark(Glyphs.unicode) }

        /// ``mark`` drawn with `glyphs`.
        func mark(_ glyphs: Glyphs) -> String {
            var text = "step \(number): \(decision)"
            if let result { text += " \(glyphs.arrow) " + result }
            return text
        }
    }

    /// The last dispatch.
    public struct Dispatch: Sendable, Equatable {
        /// `event ItemSelected{item="b"} from Item#b`.
        public var header: String
        /// The path's node labels, origin first.
        public var path: [String]
        /// The steps, in order.
        public var steps: [Step]
    }

    /// The most nodes a graph captures; the rest of a larger tree is counted in ``omittedNodes``.
    public static let maximumNodes = 2_000
    /// The deepest level the text form indents; deeper nodes are drawn at this indentation,
    /// marked with their depth.
    public static let maximumIndentation = 40
    /// The most path nodes and steps of the last dispatch that are listed.
    public static let maximumListed = 2_000
    /// The most lines drawn under one node in order; as many again are drawn where the last
    /// dispatch did more than pass or skip. The rest are counted on a line of their own.
    public static let maximumLinesPerNode = 20
    /// The longest label or line text drawn, in characters; longer text is cut with a count of
    /// what was left out. With ``maximumNodes`` and ``maximumLinesPerNode`` this bounds the size
    /// of a picture whatever the script made.
    public static let maximumTextLength = 200

    /// The nodes in document order; the root is `nodes[0]`.
    public var nodes: [GraphNode]
    /// Nodes of the tree past ``maximumNodes`` (in document order) that are not captured.
    public var omittedNodes = 0
    /// Whether the tree is the mounted one (false: taken from the last dispatch's root).
    public var isMounted: Bool
    /// The last dispatch, if any.
    public var dispatch: Dispatch?

    // MARK: - capture

    /// Captures a world's mounted tree and last dispatch.
    ///
    /// When nothing is mounted, the tree the last dispatch ran in is used instead.
    /// - Throws: ``TreeGraphError/nothingMounted`` when there is neither (or no world).
    public static func capture(world: World?, notes: (Node) -> [String] = { _ in [] }) throws(TreeGraphError)
        -> TreeGraph
    {
        guard let world else { throw .nothingMounted }
        let trace = world.lastTrace
        if let root = world.root { return TreeGraph(root: root, trace: trace, isMounted: true, notes: notes) }
        guard let trace, let top = trace.path.last ?? trace.path.first,
            let root = top.pathToRoot.last
        else { throw .nothingMounted }
        return TreeGraph(root: root, trace: trace, isMounted: false, notes: notes)
    }

    /// Captures the tree under `root` and, optionally, a trace through it. `notes` adds lines
    /// a host knows about a node (the pattern kit: `disabled`, `loading`).
    public init(root: Node, trace: Trace?, isMounted: Bool = true, notes: (Node) -> [String] = { _ in [] }) {
        self.isMounted = isMounted
        var nodes: [GraphNode] = []
        var indexOf: [ObjectIdentifier: Int] = [:]
        var stack: [(node: Node, parent: Int?)] = [(root, nil)]
        var engineNodes: [Node] = []
        var noteCounts: [Int] = []  // per node: the kit's note lines before its entry lines
        var omitted = 0
        while let item = stack.popLast() {
            let node = item.node
            let parent = item.parent
            if nodes.count >= Self.maximumNodes {
                // count the rest without capturing it
                omitted += 1
                for child in node.children { stack.append((child, nil)) }
                continue
            }
            let index = nodes.count
            indexOf[ObjectIdentifier(node)] = index
            engineNodes.append(node)
            let noteLines = notes(node).map { Line(text: $0, steps: []) }
            noteCounts.append(noteLines.count)
            nodes.append(
                GraphNode(
                    label: node.description, parent: parent, children: [],
                    lines: noteLines + Self.lines(of: node),
                    pathPosition: nil))
            if let parent { nodes[parent].children.append(index) }
            for child in node.children.reversed() { stack.append((child, index)) }
        }
        omittedNodes = omitted

        if let trace {
            var steps: [Step] = []
            for (offset, step) in trace.steps.enumerated() {
                let mark = Step(
                    number: offset + 1, node: step.node.description, index: step.index,
                    responder: step.responder, decision: step.decision.rawValue,
                    result: step.result.map { $0.description })
                steps.append(mark)
                guard let at = indexOf[ObjectIdentifier(step.node)] else { continue }
                Self.attach(
                    mark, to: &nodes[at], node: engineNodes[at], kind: trace.kind, after: noteCounts[at],
                    entry: step.entry)
            }
            for (position, node) in trace.path.enumerated() {
                if let at = indexOf[ObjectIdentifier(node)], nodes[at].pathPosition == nil {
                    nodes[at].pathPosition = position + 1
                }
            }
            dispatch = Dispatch(header: trace.header, path: trace.path.map(\.description), steps: steps)
        } else {
            dispatch = nil
        }
        self.nodes = nodes
    }

    /// The lines of one node: entries, subscribers, publishers, tap actions.
    static func lines(of node: Node) -> [Line] {
        var lines: [Line] = []
        for (offset, entry) in node.responders.enumerated() {
            var text = "#\(offset + 1) \(entry.label)"
            if let id = entry.id { text += " id=\(id)" }
            if entry.once { text += " once" }
            lines.append(Line(text: text, steps: []))
        }
        for subscriber in node.subscribers {
            var text = subscriber.label
            if let id = subscriber.id { text += " id=\(id)" }
            lines.append(Line(text: text, steps: []))
        }
        for publisher in node.publishers {
            var text = "publisher(\(publisher.type.name), \(publisher.destination.rawValue))"
            if let id = publisher.id { text += " id=\(id)" }
            lines.append(Line(text: text, steps: []))
        }
        for tap in node.tapActions where !tap.isHidden {
            var text = tap.count == 1 ? "onTapGesture: " : "onTapGesture(count=\(tap.count)): "
            switch tap.action {
            case .trigger(let value): text += "trigger \(value)"
            case .triggerProduced: text += "trigger (function)"
            case .perform: text += "perform (function)"
            }
            lines.append(Line(text: text, steps: []))
        }
        return lines
    }

    /// Marks the line a step visited; a step whose entry is gone gets a line of its own.
    /// `notes`: how many note lines come before the node's entry lines. `entry`: the entry the step
    /// visited, found in the node's list by identity (its position may have moved since: a `once`
    /// entry before it ran, or one was removed; matched by position, the mark went to a made-up
    /// "removed since" line while the entry that took the step stayed unmarked: found by an
    /// acceptance probe).
    static func attach(
        _ step: Step, to graphNode: inout GraphNode, node: Node, kind: TraceKind, after notes: Int = 0,
        entry: ResponderEntry? = nil
    ) {
        if kind == .action {
            attachAction(step, to: &graphNode)
            return
        } else if step.index == 0 {
            // The final `unhandled` step: the value went past the root.
            graphNode.lines.append(Line(text: "(past the root)", steps: [step]))
            return
        }
        let responders = node.responders
        let target: Int?
        if kind == .publish {
            // a subscribe step's index counts the responder entries first, as node:responders()
            let subscribers = node.subscribers
            let k = step.index - responders.count
            if k >= 1, k <= subscribers.count, subscribers[k - 1].label == step.responder {
                target = notes + step.index - 1
            } else {
                target = nil
            }
        } else if let entry {
            target = responders.firstIndex { $0 === entry }.map { notes + $0 }
        } else if step.index <= responders.count, responders[step.index - 1].label == step.responder {
            target = notes + step.index - 1
        } else {
            target = nil
        }
        if let target, target < graphNode.lines.count {
            graphNode.lines[target].steps.append(step)
        } else {
            let text = kind == .publish ? step.responder : "#\(step.index) \(step.responder)"
            graphNode.lines.append(Line(text: text + " (removed since)", steps: [step]))
        }
    }

    /// How the step list names a step's entry: `#2 handleEvent(E)`, or the bare responder of a
    /// step without a list position (`canPerform(undo:)`), or nothing (past the root).
    static func entryText(_ step: Step) -> String {
        if step.index > 0 { return "#\(step.index) \(step.responder)" }
        return step.decision == "unhandled" ? "" : step.responder
    }

    /// Marks the line of a control action's step: an entry of the control's dispatch table
    /// (`event → label` note lines), a `canPerform` line of a node asked by a nil-targeted
    /// action, or a line of its own (a refused input, a node that could not perform, past the root).
    static func attachAction(_ step: Step, to graphNode: inout GraphNode) {
        let wanted: (Line) -> Bool
        if step.index > 0 {
            wanted = { $0.text.hasSuffix("→ " + step.responder) }
        } else if step.decision == "handled" {
            wanted = { $0.text == step.responder }
        } else {
            wanted = { _ in false }
        }
        if let i = graphNode.lines.firstIndex(where: wanted) {
            graphNode.lines[i].steps.append(step)
            return
        }
        let text: String
        switch step.decision {
        case "disabled", "loading": text = "(\(step.responder) refused)"
        case "unhandled": text = "(past the root)"
        case "skipped":
            text =
                "(asked: cannot \(step.responder.hasPrefix("canPerform") ? "perform" + step.responder.dropFirst(10) : Substring(step.responder)))"
        default: text = step.responder
        }
        graphNode.lines.append(Line(text: text, steps: [step]))
    }
}
