import ResponderEngine

/// The ASCII form of a graph (`responder graph --format text`).
extension TreeGraph {
    /// The indented tree (ASCII: `|-- `, `` `-- ``) with `<-` markers, then the last dispatch's
    /// path and steps.
    public func text() -> String {
        let g = Glyphs.ascii
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
        out += "path: " + Self.oneLine(Self.listed(dispatch.path, g)) + "\n"
        out += Self.stepList(dispatch.steps.prefix(Self.maximumListed), g)
        if dispatch.steps.isEmpty { out += "  (no steps)\n" }
        if dispatch.steps.count > Self.maximumListed {
            out +=
                "  \(g.more) \(dispatch.steps.count - Self.maximumListed) more steps not shown "
                + "(a graph lists at most \(Self.maximumListed))\n"
        }
        out += Self.legend(g) + "\n"
        return out
    }

    /// The one numbering the pictures use, explained under them: steps are numbered as the
    /// trace lists them; the path's nodes are marked, in order on the `path:` line.
    static func legend(_ g: Glyphs) -> String {
        "legend: \(g.mark) step N   the entry that took step N of the list above\n"
            + "        \(g.mark) origin   where the value started; \(g.mark) path: the nodes it passed (in order on path:)"
    }

    /// The mark after a node on the last dispatch's path (position 1 is the origin).
    static func pathMark(_ position: Int, _ g: Glyphs) -> String {
        position == 1 ? "  \(g.mark) origin" : "  \(g.mark) path"
    }

    /// The most steps the picture's caption lists (the text form lists up to ``maximumListed``).
    static let maximumCaptionSteps = 20

    /// The numbered step lines, columns sized to their longest entries.
    static func stepList(_ steps: ArraySlice<Step>, _ g: Glyphs) -> String {
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
            if let result = step.result { line += " \(g.arrow) " + oneLine(clip(result)) }
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
        var width = Self.clip(node.label).count + (node.pathPosition.map { Self.pathMark($0, .unicode).count } ?? 0)
        let (shown, hidden) = Self.shownLines(node.lines)
        for line in shown {
            var count = Self.clip(line.text).count
            if !line.steps.isEmpty {
                count += 4 + Self.clip(line.steps.map(\.mark).joined(separator: ", ")).count
            }
            width = max(width, count)
        }
        if hidden > 0 { width = max(width, Self.hiddenNote(hidden, .unicode).count) }
        return width
    }

    /// `note: …` for a tree larger than ``maximumNodes``.
    var omittedNote: String {
        "note: \(omittedNodes) more nodes not shown (a graph shows at most \(Self.maximumNodes) nodes, "
            + "the first in document order)"
    }

    /// Labels joined with arrows; past ``maximumListed`` the middle ones are left out.
    static func listed(_ labels: [String], _ g: Glyphs) -> String {
        let arrow = " \(g.arrow) "
        guard labels.count > maximumListed else { return labels.map { clip($0) }.joined(separator: arrow) }
        let half = maximumListed / 2
        return
            (labels.prefix(half).map { clip($0) } + ["\(g.more) \(labels.count - 2 * half) more \(g.more)"]
            + labels.suffix(half).map { clip($0) })
            .joined(separator: arrow)
    }

    /// `text`, or its first ``maximumTextLength`` characters and a count of the rest.
    static func clip(_ text: String) -> String {
        TextClip.clip(text, to: maximumTextLength)
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
    static func hiddenNote(_ count: Int, _ g: Glyphs) -> String {
        "\(g.more) \(count) more lines not shown (a graph shows at most \(maximumLinesPerNode) per node)"
    }

    /// The indented tree, walked iteratively. Indentation stops growing at
    /// ``maximumIndentation`` levels; deeper nodes show their depth instead.
    private func renderText(into out: inout String) {
        let g = Glyphs.ascii
        var stack: [(index: Int, prefix: String, isLast: Bool, depth: Int)] = [(0, "", true, 0)]
        var capped = false
        while let (index, prefix, isLast, depth) = stack.popLast() {
            let node = nodes[index]
            let isRoot = depth == 0
            let indents = depth <= Self.maximumIndentation
            out += prefix + (isRoot ? "" : (isLast ? g.lastBranch : g.branch))
            if !indents {
                out += "[depth \(depth)] "
                capped = true
            }
            out += Self.oneLine(Self.clip(node.label))
            if let position = node.pathPosition { out += Self.pathMark(position, g) }
            out += "\n"
            let inner = indents ? prefix + (isRoot ? "" : (isLast ? "    " : g.vertical)) : prefix
            let bar = node.children.isEmpty ? "    " : g.vertical
            let (shown, hidden) = Self.shownLines(node.lines)
            let width =
                shown.filter { !$0.steps.isEmpty }.map { Self.oneLine(Self.clip(g.arrows(in: $0.text))).count }.max()
                ?? 0
            for line in shown {
                var text = inner + bar
                let lineText = Self.oneLine(Self.clip(g.arrows(in: line.text)))
                if line.steps.isEmpty {
                    text += lineText
                } else {
                    text +=
                        Self.pad(lineText, width) + "  \(g.mark) "
                        + Self.oneLine(Self.clip(line.steps.map { $0.mark(g) }.joined(separator: ", ")))
                }
                out += text + "\n"
            }
            if hidden > 0 { out += inner + bar + Self.hiddenNote(hidden, g) + "\n" }
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
}
