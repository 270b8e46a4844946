import ResponderEngine

/// A node addressed the way a spec can find it again: the `index`-th node (1-based, document
/// order) of `root:findAll(selector)`, where the selector is `#id` for nodes with an id, else
/// the node's name.
package struct ExploreTarget: Sendable, Hashable {
    package var selector: String
    package var index: Int

    package init(selector: String, index: Int) {
        self.selector = selector
        self.index = index
    }

    /// The Lua expression that finds the node from `root`.
    package var lua: String {
        index == 1
            ? "root:find(\(ExploreAction.quote(selector)))"
            : "root:findAll(\(ExploreAction.quote(selector)))[\(index)]"
    }
}

/// A value a custom action drew (`draw.int`, `draw.pick` record integers; `draw.text` strings).
package enum ExploreDraw: Sendable, Hashable {
    case int(Int64)
    case text(String)

    var lua: String {
        switch self {
        case .int(let i): String(i)
        case .text(let s): ExploreAction.quote(s)
        }
    }
}

/// One resolved action of an exploration: what a spec line does.
package struct ExploreAction: Sendable, Hashable {
    /// The kinds of actions, each a public API call.
    package enum Kind: String, Sendable, CaseIterable {
        case tap, typeText, commit, toggle, slide, increment, decrement, selectSegment, sendActions, advance,
            cancelTask, custom
    }

    package var kind: Kind
    /// The node acted on (nil for `advance` and custom actions).
    package var target: ExploreTarget?
    /// `typeText`'s text.
    package var text: String?
    /// Whether `text` was drawn from the script's `explore.inputs` list: shrinking then keeps
    /// it (a simpler text would be one the explorer could never have typed).
    package var textFromInputs = false
    /// `slide`'s value, `advance`'s seconds, `selectSegment`'s index, `tap`'s count, the index
    /// of the task to cancel in `explore.tasks()`.
    package var number: Double?
    /// A custom action's name.
    package var name: String?
    /// A custom action's draws.
    package var draws: [ExploreDraw] = []

    package init(
        kind: Kind, target: ExploreTarget? = nil, text: String? = nil, number: Double? = nil,
        name: String? = nil, draws: [ExploreDraw] = []
    ) {
        self.kind = kind
        self.target = target
        self.text = text
        self.number = number
        self.name = name
        self.draws = draws
    }

    /// The spec line: `tap(root:find("#save"))`, `typeText(…, "abc")`, `advance(1)`,
    /// `explore.perform("addRow", { 2 })`.
    package var lua: String {
        let t = target?.lua ?? "root"
        switch kind {
        case .tap:
            if let n = number, n != 1 { return "tap(\(t), \(ExploreAction.number(n)))" }
            return "tap(\(t))"
        case .typeText: return "typeText(\(t), \(ExploreAction.quote(text ?? "")))"
        case .commit, .toggle, .increment, .decrement: return "\(kind.rawValue)(\(t))"
        case .slide: return "slide(\(t), \(ExploreAction.number(number ?? 0)))"
        case .selectSegment: return "selectSegment(\(t), \(ExploreAction.number(number ?? 1)))"
        case .sendActions: return "sendActions(\(t), \"touchUpInside\")"
        case .advance: return "advance(\(ExploreAction.number(number ?? 0)))"
        case .cancelTask: return "explore.tasks()[\(ExploreAction.number(number ?? 1))]:cancel()"
        case .custom:
            let args = draws.isEmpty ? "" : ", { \(draws.map(\.lua).joined(separator: ", ")) }"
            return "explore.perform(\(ExploreAction.quote(name ?? "")))".dropLast() + args + ")"
        }
    }

    /// A short label for summaries: kind and target (`tap #save`, `advance`).
    package var label: String {
        switch kind {
        case .custom: "custom \(name ?? "")"
        case .advance: "advance"
        case .cancelTask: "cancel task"
        default: "\(kind.rawValue) \(target.map { $0.index == 1 ? $0.selector : "\($0.selector)[\($0.index)]" } ?? "")"
        }
    }

    /// A Lua string literal.
    package static func quote(_ s: String) -> String { "\"" + TextEscaper.luaString(s) + "\"" }

    /// A number as Lua reads it back exactly (integers without `.0`).
    package static func number(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }
}
