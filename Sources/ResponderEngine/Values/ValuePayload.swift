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
}
