import ResponderEngine

/// The Graphviz form of a graph (`responder graph --format dot|svg`).
extension TreeGraph {
    /// Graphviz input: one box per node (plain left-justified labels), tree edges parent → child,
    /// the last dispatch's path in bold red with arrows pointing the way the value travelled.
    public func dot() -> String {
        var out = "digraph responders {\n"
        var graphLabel = isMounted ? "" : "nothing is mounted; the tree of the last dispatch\n"
        if let dispatch {
            graphLabel +=
                "last dispatch: \(Self.clip(dispatch.header))\npath: \(Self.listed(dispatch.path, .unicode))\n"
            graphLabel += Self.stepList(dispatch.steps.prefix(Self.maximumCaptionSteps), .unicode)
            if dispatch.steps.count > Self.maximumCaptionSteps {
                graphLabel +=
                    "  … \(dispatch.steps.count - Self.maximumCaptionSteps) more steps (--format text lists them)\n"
            }
            graphLabel += Self.legend(.unicode) + "\n"
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
            if let position = node.pathPosition { label += Self.pathMark(position, .unicode) }
            label += "\n"
            let (shown, hidden) = Self.shownLines(node.lines)
            for line in shown {
                label += Self.clip(line.text)
                if !line.steps.isEmpty { label += "  ◀ " + Self.clip(line.steps.map(\.mark).joined(separator: ", ")) }
                label += "\n"
            }
            if hidden > 0 { label += Self.hiddenNote(hidden, .unicode) + "\n" }
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
