/// One broken rule, as recorded in ``World/warnings`` or carried by a ``StrictViolation``.
public struct Violation: CustomStringConvertible {
    /// Which rule was broken.
    public var kind: ViolationKind
    /// The human-readable message, without location prefix.
    public var message: String
    /// Where the dispatch started (unhandled kinds) or the declaring/subscribing node.
    public var node: Node
    /// The offending value, when there is one.
    public var value: Value?
    /// The missing or undeclared type (undeclared values, missing responders, subscribers
    /// without publisher).
    public var type: ValueType?
    /// The script line the violation is attributed to, when known.
    public var location: SourceLocation?

    /// Creates a violation record.
    public init(
        kind: ViolationKind, message: String, node: Node, value: Value? = nil,
        location: SourceLocation? = nil, type: ValueType? = nil
    ) {
        self.kind = kind
        self.message = message
        self.node = node
        self.value = value
        self.location = location
        self.type = type ?? value?.type
    }

    /// Estimated bytes of a violation kept in ``World/warnings``: its slot, message and value.
    var cost: Int {
        MemoryMeter.Cost.arraySlot * 8 + MemoryMeter.Cost.string(message) + (value == nil ? 0 : Value.cost)
    }

    /// `FILE:LINE: message`, or just the message when the location is unknown.
    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }

    /// ``description`` on one line (a line break in a name or id shows as a space).
    public var line: String { TextEscaper.oneLine(description) }

    /// The diagnostic line printed in relaxed mode: `warning: FILE:LINE: message`, on one line.
    public var warningLine: String { "warning: " + line }
}
