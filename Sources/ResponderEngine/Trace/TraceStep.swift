/// One visited entry of a trace.
public struct TraceStep: CustomStringConvertible {
    /// The node whose entry was visited (the root for the final `unhandled` step).
    public var node: Node
    /// 1-based position of the entry in the node's list at arrival; 0 for the `unhandled` step.
    public var index: Int
    /// The entry's label, e.g. `handleEvent(ItemSelected)`; empty for the `unhandled` step.
    public var responder: String
    /// The entry's filter.
    public var filter: ValueType?
    /// The value the entry saw.
    public var value: Value
    /// What happened.
    public var decision: Decision
    /// The resulting value for `transformed`, `caught` and `threw`.
    public var result: Value?
    /// The entry visited, for a step of a node's list (`nil` for the `unhandled` step and for the
    /// steps of publications and control actions): its place in the list may have changed since
    /// (a `once` entry or a removal before it), its identity has not.
    public var entry: ResponderEntry?

    /// Creates a step.
    public init(
        node: Node, index: Int, responder: String, filter: ValueType?, value: Value,
        decision: Decision, result: Value? = nil
    ) {
        self.node = node
        self.index = index
        self.responder = responder
        self.filter = filter
        self.value = value
        self.decision = decision
        self.result = result
    }

    /// The least width of the node column in the text form of a trace.
    public static let nodeWidth = 12
    /// The least width of the responder column in the text form of a trace.
    public static let responderWidth = 28

    /// The step's line in the text form of a trace, on its own (``line(nodeWidth:responderWidth:)``
    /// with the least widths).
    public var description: String { line(nodeWidth: Self.nodeWidth, responderWidth: Self.responderWidth) }

    /// The step's line in the text form of a trace.
    ///
    /// Two spaces, the node padded to `nodeWidth` columns, a space, `#index `, the responder padded
    /// to `responderWidth` columns, a space and the decision; a column longer than its width is
    /// followed by one space; `#index` is padded to `indexWidth` columns (the widest index of the
    /// trace, so that `#9` and `#10` line up). The `unhandled` step has no index and no responder: the decision
    /// takes the place of the index column (`  Root            unhandled`); so does the `disabled`
    /// step of an action a disabled control refused (`  Button#save     disabled`). A trace
    /// widens both columns to its longest node and responder (see ``Trace/description``).
    /// Node and responder longer than ``TextClip/column`` characters are cut (see ``TextClip``).
    public func line(nodeWidth: Int, responderWidth: Int, indexWidth: Int = 2) -> String {
        // (one step a line: a line break in a name or id is shown as a space)
        let responder = TextClip.clip(TextEscaper.oneLine(self.responder), to: TextClip.column)
        let line =
            "  " + Self.pad(TextClip.clip(TextEscaper.oneLine(node.description), to: TextClip.column), nodeWidth) + " "
        let noIndex = String(repeating: " ", count: indexWidth + 1)
        if index == 0 && (decision == .unhandled || decision == .disabled || decision == .loading) {
            return line + noIndex + decision.rawValue
        }
        if index == 0 {
            // an action trace's step with no list position (a node asked by a nil-targeted action)
            return line + noIndex + Self.pad(responder, responderWidth) + " " + decision.rawValue
        }
        return line + Self.pad("#\(index)", indexWidth) + " " + Self.pad(responder, responderWidth) + " "
            + decision.rawValue
    }

    /// The width of `#index` in the text form: 2 up to `#9`, 3 up to `#99`, …
    var indexWidth: Int { 1 + String(index).count }

    static func pad(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }
}
