/// An event or error value travelling through the tree.
///
/// Values are immutable except for ``cause``, which the engine sets when a responder's throw
/// replaces one error with another.
public final class Value: CustomStringConvertible {
    /// The value's type; its `kind` says whether this is an event or an error.
    public let type: ValueType
    /// The value's fields, or `nil` when it has none.
    public let payload: (any ValuePayload)?
    /// The error this one replaced, when an error responder threw it while handling `cause`.
    public internal(set) var cause: Value?

    /// Creates a value.
    /// - Parameters:
    ///   - type: The value's type.
    ///   - payload: Its fields, if any.
    ///   - cause: The error this value replaces, if any.
    public init(type: ValueType, payload: (any ValuePayload)? = nil, cause: Value? = nil) {
        self.type = type
        self.payload = payload
        self.cause = cause
    }

    /// Estimated bytes of a value kept by the engine (the object and its payload object).
    static let cost = MemoryMeter.Cost.object(32) + MemoryMeter.Cost.object(32)

    /// Whether this is an event or an error.
    public var kind: ValueKind { type.kind }

    /// `Name{fields}`, e.g. `ItemSelected{item="b"}`, or `ItemSelected{}` without fields.
    public var description: String {
        "\(type.name){\(payload?.fieldsDescription() ?? "")}"
    }

    /// Whether `other` is this value: the same object, or the same value of the host that made
    /// both (``ValuePayload/identity``).
    public func isSame(as other: Value) -> Bool {
        if self === other { return true }
        guard let mine = payload?.identity else { return false }
        return mine == other.payload?.identity
    }

    /// Returns this value with `cause` recorded: the value itself when it is `cause` (an error
    /// raised again while it is handled), or when it has no cause yet and no cycle would arise;
    /// otherwise a copy carrying `cause`.
    func replacing(_ cause: Value) -> Value {
        if isSame(as: cause) { return self }
        if self.cause == nil {
            var link: Value? = cause
            while let current = link {
                if current.isSame(as: self) {
                    return Value(type: type, payload: payload?.payloadForCopy(), cause: cause)
                }
                link = current.cause
            }
            self.cause = cause
            return self
        }
        return Value(type: type, payload: payload?.payloadForCopy(), cause: cause)
    }
}
