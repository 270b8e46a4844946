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
        public var mark: String {
            var text = "step \(number): \(decision)"
            if let result { text += " → " + result }
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
                Self.attach(mark, to: &nodes[at], node: engineNodes[at], kind: trace.kind, after: noteCounts[at])
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
    /// `notes`: how many note lines come before the node's entry lines.
    static func attach(_ step: Step, to graphNode: inout GraphNode, node: Node, kind: TraceKind, after notes: Int = 0) {
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

    // MARK: - text

    /// The indented tree with `◀` markers, then the last dispatch's path and steps.
    public func text() -> String {
        var out = ""
        if !isMounted {
            out += "nothing is mounted; showing the tree of the last dispatch\n"
        }
        if !nodes.isEmpty { renderText(into: &out) }
        if omittedNodes > 0 { out += omittedNote + "\n" }
        out += "\n"
        guard let dispatch else {
            out += "last dispatch: none\n"
            return out
        }
        out += "last dispatch: " + Self.oneLine(Self.clip(dispatch.header)) + "\n"
        out += "path: " + Self.oneLine(Self.listed(dispatch.path)) + "\n"
        out += Self.stepList(dispatch.steps.prefix(Self.maximumListed))
        if dispatch.steps.isEmpty { out += "  (no steps)\n" }
        if dispatch.steps.count > Self.maximumListed {
            out +=
                "  … \(dispatch.steps.count - Self.maximumListed) more steps not shown "
                + "(a graph lists at most \(Self.maximumListed))\n"
        }
        out += Self.legend + "\n"
        return out
    }

    /// The one numbering the pictures use, explained under them: steps are numbered as the
    /// trace lists them; the path's nodes are marked, in order on the `path:` line.
    static let legend =
        "legend: ◀ step N   the entry that took step N of the list above\n"
        + "        ◀ origin   where the value started; ◀ path: the nodes it passed (in order on path:)"

    /// The mark after a node on the last dispatch's path (position 1 is the origin).
    static func pathMark(_ position: Int) -> String {
        position == 1 ? "  ◀ origin" : "  ◀ path"
    }

    /// The most steps the picture's caption lists (the text form lists up to ``maximumListed``).
    static let maximumCaptionSteps = 20

    /// The numbered step lines, columns sized to their longest entries.
    static func stepList(_ steps: ArraySlice<Step>) -> String {
        let nodeWidth = steps.map { oneLine(clip($0.node)).count }.max() ?? 0
        let entryWidth = steps.map { oneLine(clip(entryText($0))).count }.max() ?? 0
        let numberWidth = String(steps.last?.number ?? 0).count
        var out = ""
        for step in steps {
            var line =
                "  " + pad(String(step.number), numberWidth, left: true) + "  "
                + pad(oneLine(clip(step.node)), nodeWidth) + "  "
                + pad(oneLine(clip(entryText(step))), entryWidth) + "  "
                + step.decision
            if let result = step.result { line += " → " + oneLine(clip(result)) }
            out += line + "\n"
        }
        return out
    }

    /// The widest picture that stays readable at a README's width, in label characters
    /// (about 800 px at the 10-point monospace font of the boxes).
    static let readableWidth = 120

    /// Graphviz rank constraints that lay a parent's many leaf children out in rows (a grid of
    /// items would otherwise be one long row): children of one row share a rank, and an
    /// invisible edge puts each row under the previous one. Only leaves are wrapped, so the
    /// drawn tree edges keep their meaning.
    func rowLayout() -> (constraints: String, columns: [Int: String]) {
        var out = ""
        var columns: [Int: String] = [:]
        for (parent, node) in nodes.enumerated() where node.children.count > 2 {
            let children = node.children
            guard children.allSatisfy({ nodes[$0].children.isEmpty }) else { continue }
            var widest = 0
            for i in children { widest = max(widest, boxWidth(nodes[i])) }
            let perRow = max(1, Self.readableWidth / (widest + 4))
            guard children.count > perRow else { continue }
            var rows: [[Int]] = []
            var start = 0
            while start < children.count {
                rows.append(Array(children[start..<min(start + perRow, children.count)]))
                start += perRow
            }
            for row in rows {
                out += "  { rank=same; " + row.map { "n\($0);" }.joined(separator: " ") + " }\n"
            }
            // each column a group under the one above it, so rows line up as a grid
            for (upper, lower) in zip(rows, rows.dropFirst()) {
                for (a, b) in zip(upper, lower) { out += "  n\(a) -> n\(b) [style=invis];\n" }
            }
            for row in rows {
                for (column, child) in row.enumerated() { columns[child] = "p\(parent)c\(column)" }
            }
        }
        return (out, columns)
    }

    /// The widest line of a node's box, in characters.
    func boxWidth(_ node: GraphNode) -> Int {
        var width = Self.clip(node.label).count + (node.pathPosition.map { Self.pathMark($0).count } ?? 0)
        let (shown, hidden) = Self.shownLines(node.lines)
        for line in shown {
            var count = Self.clip(line.text).count
            if !line.steps.isEmpty {
                count += 4 + Self.clip(line.steps.map(\.mark).joined(separator: ", ")).count
            }
            width = max(width, count)
        }
        if hidden > 0 { width = max(width, Self.hiddenNote(hidden).count) }
        return width
    }

    /// `note: …` for a tree larger than ``maximumNodes``.
    var omittedNote: String {
        "note: \(omittedNodes) more nodes not shown (a graph shows at most \(Self.maximumNodes) nodes, "
            + "the first in document order)"
    }

    /// Labels joined with arrows; past ``maximumListed`` the middle ones are left out.
    static func listed(_ labels: [String]) -> String {
        guard labels.count > maximumListed else { return labels.map { clip($0) }.joined(separator: " → ") }
        let half = maximumListed / 2
        return
            (labels.prefix(half).map { clip($0) } + ["… \(labels.count - 2 * half) more …"]
            + labels.suffix(half).map { clip($0) })
            .joined(separator: " → ")
    }

    /// `text`, or its first ``maximumTextLength`` characters and a count of the rest.
    static func clip(_ text: String) -> String {
        guard text.utf8.count > maximumTextLength, text.count > maximumTextLength else { return text }
        return text.prefix(maximumTextLength) + "… (\(text.count - maximumTextLength) more characters)"
    }

    /// The lines drawn under a node: the first ``maximumLinesPerNode``, then up to as many of the
    /// others where the last dispatch did more than pass or skip (handled, transformed, …); with
    /// the number of lines left out.
    static func shownLines(_ lines: [Line]) -> (shown: [Line], hidden: Int) {
        guard lines.count > maximumLinesPerNode else { return (lines, 0) }
        var shown = Array(lines.prefix(maximumLinesPerNode))
        for line in lines.dropFirst(maximumLinesPerNode) where shown.count < 2 * maximumLinesPerNode {
            if line.steps.contains(where: { $0.decision != "passed" && $0.decision != "skipped" }) {
                shown.append(line)
            }
        }
        return (shown, lines.count - shown.count)
    }

    /// The line that stands for lines left out.
    static func hiddenNote(_ count: Int) -> String {
        "… \(count) more lines not shown (a graph shows at most \(maximumLinesPerNode) per node)"
    }

    /// The indented tree, walked iteratively. Indentation stops growing at
    /// ``maximumIndentation`` levels; deeper nodes show their depth instead.
    private func renderText(into out: inout String) {
        var stack: [(index: Int, prefix: String, isLast: Bool, depth: Int)] = [(0, "", true, 0)]
        var capped = false
        while let (index, prefix, isLast, depth) = stack.popLast() {
            let node = nodes[index]
            let isRoot = depth == 0
            let indents = depth <= Self.maximumIndentation
            out += prefix + (isRoot ? "" : (isLast ? "└── " : "├── "))
            if !indents {
                out += "[depth \(depth)] "
                capped = true
            }
            out += Self.oneLine(Self.clip(node.label))
            if let position = node.pathPosition { out += Self.pathMark(position) }
            out += "\n"
            let inner = indents ? prefix + (isRoot ? "" : (isLast ? "    " : "│   ")) : prefix
            let bar = node.children.isEmpty ? "    " : "│   "
            let (shown, hidden) = Self.shownLines(node.lines)
            let width = shown.filter { !$0.steps.isEmpty }.map { Self.oneLine(Self.clip($0.text)).count }.max() ?? 0
            for line in shown {
                var text = inner + bar
                if line.steps.isEmpty {
                    text += Self.oneLine(Self.clip(line.text))
                } else {
                    text +=
                        Self.pad(Self.oneLine(Self.clip(line.text)), width) + "  ◀ "
                        + Self.oneLine(Self.clip(line.steps.map(\.mark).joined(separator: ", ")))
                }
                out += text + "\n"
            }
            if hidden > 0 { out += inner + bar + Self.hiddenNote(hidden) + "\n" }
            for (offset, child) in node.children.enumerated().reversed() {
                stack.append((child, inner, offset == node.children.count - 1, depth + 1))
            }
        }
        if capped {
            out += "note: indentation stops at depth \(Self.maximumIndentation); deeper nodes show [depth N]\n"
        }
    }

    /// Keeps user text on one line of the text tree: newlines, tabs and other control
    /// characters show as `\n`, `\t`, `\r` or a space.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f { out += " " } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let count = text.count
        if count >= width { return text }
        let fill = String(repeating: " ", count: width - count)
        return left ? fill + text : text + fill
    }

    // MARK: - dot

    /// Graphviz input: one box per node (plain left-justified labels), tree edges parent → child,
    /// the last dispatch's path in bold red with arrows pointing the way the value travelled.
    public func dot() -> String {
        var out = "digraph responders {\n"
        var graphLabel = isMounted ? "" : "nothing is mounted; the tree of the last dispatch\n"
        if let dispatch {
            graphLabel += "last dispatch: \(Self.clip(dispatch.header))\npath: \(Self.listed(dispatch.path))\n"
            graphLabel += Self.stepList(dispatch.steps.prefix(Self.maximumCaptionSteps))
            if dispatch.steps.count > Self.maximumCaptionSteps {
                graphLabel +=
                    "  … \(dispatch.steps.count - Self.maximumCaptionSteps) more steps (--format text lists them)\n"
            }
            graphLabel += Self.legend + "\n"
        } else {
            graphLabel += "last dispatch: none\n"
        }
        if omittedNodes > 0 { graphLabel += omittedNote + "\n" }
        out +=
            "  graph [rankdir=TB, newrank=true, nodesep=0.25, labelloc=t, labeljust=l, fontname=\"monospace\", fontsize=11, label=\"\(Self.dotEscape(graphLabel))\"];\n"
        out += "  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
        out += "  edge [color=\"gray50\", arrowsize=0.7, fontname=\"monospace\", fontsize=10];\n"
        let rows = rowLayout()
        for (index, node) in nodes.enumerated() {
            var label = Self.clip(node.label)
            if let position = node.pathPosition { label += Self.pathMark(position) }
            label += "\n"
            let (shown, hidden) = Self.shownLines(node.lines)
            for line in shown {
                label += Self.clip(line.text)
                if !line.steps.isEmpty { label += "  ◀ " + Self.clip(line.steps.map(\.mark).joined(separator: ", ")) }
                label += "\n"
            }
            if hidden > 0 { label += Self.hiddenNote(hidden) + "\n" }
            var attributes = "label=\"\(Self.dotEscape(label))\""
            if let column = rows.columns[index] { attributes = "group=\"\(column)\", " + attributes }
            if node.pathPosition != nil {
                attributes += ", color=\"red\", penwidth=2, style=\"filled,bold\", fillcolor=\"#ffecec\""
            } else if node.lines.contains(where: { !$0.steps.isEmpty }) {
                attributes += ", color=\"red\", style=\"filled\", fillcolor=\"#fff6f6\""
            }
            out += "  n\(index) [\(attributes)];\n"
        }
        out += rows.constraints
        // Path edges: consecutive path nodes that are parent and child in the snapshot.
        var onPath: [Int: Int] = [:]  // child index → position of the child on the path
        let byPosition = nodes.indices.compactMap { i in nodes[i].pathPosition.map { ($0, i) } }
        let positionIndex = Dictionary(byPosition, uniquingKeysWith: { first, _ in first })
        for (position, child) in positionIndex {
            if let parent = positionIndex[position + 1], nodes[child].parent == parent {
                onPath[child] = position
            }
        }
        for (index, node) in nodes.enumerated() {
            for child in node.children {
                if onPath[child] != nil {
                    // no label on the line: the steps carry the numbers (one numbering, see legend)
                    out += "  n\(index) -> n\(child) [dir=back, color=\"red\", penwidth=2.5];\n"
                } else {
                    out += "  n\(index) -> n\(child);\n"
                }
            }
        }
        out += "}\n"
        return out
    }

    /// Escapes text for a double-quoted Graphviz label, every line left-justified (`\l`).
    public static func dotEscape(_ text: String) -> String { TextEscaper.dotLabel(text) }
}
