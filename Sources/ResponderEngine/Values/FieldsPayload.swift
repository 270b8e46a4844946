/// A simple ``ValuePayload`` backed by a dictionary, for Swift-only use and tests.
public final class FieldsPayload: ValuePayload {
    /// Field values as already-rendered text, e.g. `"\"b\""` for the string `b`.
    public let rendered: [String: String]
    /// Raw string field values, returned by ``stringField(_:)``.
    public let strings: [String: String]

    /// Creates a payload from already-rendered field texts.
    ///
    /// ``stringField(_:)`` returns a rendered value when it is a double-quoted string, unquoted.
    /// - Parameter rendered: Field name to rendered value.
    public init(rendered: [String: String]) {
        self.rendered = rendered
        var strings: [String: String] = [:]
        for (key, text) in rendered where text.count >= 2 && text.first == "\"" && text.last == "\"" {
            strings[key] = String(text.dropFirst().dropLast())
        }
        self.strings = strings
    }

    /// Creates a payload whose fields are all strings; they render double-quoted.
    /// - Parameter strings: Field name to raw string value.
    public init(strings: [String: String]) {
        self.strings = strings
        self.rendered = strings.mapValues { FieldsPayload.quote($0) }
    }

    /// The fields as `key=value` pairs, keys sorted, separated by `, `.
    public func fieldsDescription() -> String {
        rendered.keys.sorted().map { "\($0)=\(rendered[$0]!)" }.joined(separator: ", ")
    }

    /// The raw value of a string field.
    public func stringField(_ name: String) -> String? { strings[name] }

    /// Renders a string in double quotes, escaping `\`, `"` and newlines.
    public static func quote(_ text: String) -> String { "\"" + TextEscaper.quoted(text) + "\"" }
}
