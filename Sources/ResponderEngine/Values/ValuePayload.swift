/// The fields of a value, supplied by whoever builds the value.
///
/// The engine never interprets fields except through these two functions: it renders them
/// for traces and messages, and reads `title` and `message` of alertable errors.
/// The Lua bridge implements this protocol on top of Lua tables.
public protocol ValuePayload: AnyObject {
    /// The fields as text, keys sorted, e.g. `item="b"`; an empty string when there are none.
    func fieldsDescription() -> String
    /// The value of a string field, or `nil` when the field is absent or not a string.
    func stringField(_ name: String) -> String?
    /// The payload for another ``Value`` with the same fields (a value given a new cause while
    /// it already has one). A payload that keeps per-value state (the Lua bridge's link from its
    /// userdata back to the one Swift value) returns a payload of its own; the default is `self`.
    func payloadForCopy() -> any ValuePayload
    /// What makes two Swift values the same value of the host (the Lua bridge: the same
    /// userdata), when the host can make several Swift values for one of its values; `nil` (the
    /// default) when only the Swift value's own identity counts.
    var identity: UnsafeRawPointer? { get }
}

extension ValuePayload {
    /// Shares this payload.
    public func payloadForCopy() -> any ValuePayload { self }
    /// No host identity: only the Swift value's own.
    public var identity: UnsafeRawPointer? { nil }
}
