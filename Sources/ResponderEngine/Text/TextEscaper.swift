/// The one way the project escapes text for the formats it writes: a table of replacements, and
/// what becomes of the other control characters. Each format is one static escaper below.
public struct TextEscaper: Sendable {
    /// What each listed scalar becomes.
    public let replacements: [Unicode.Scalar: String]
    /// What another control character (below U+0020, or U+007F) becomes; nil keeps it.
    public let control: @Sendable (Unicode.Scalar) -> String?

    /// An escaper with these replacements; other control characters are kept unless `control`
    /// says otherwise.
    public init(
        _ replacements: [Unicode.Scalar: String],
        control: @escaping @Sendable (Unicode.Scalar) -> String? = { _ in nil }
    ) {
        self.replacements = replacements
        self.control = control
    }

    /// The escaped text.
    public func callAsFunction<S: StringProtocol>(_ text: S) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let replacement = replacements[scalar] {
                out += replacement
            } else if scalar.value < 0x20 || scalar.value == 0x7F, let replacement = control(scalar) {
                out += replacement
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// This escaper with more replacements.
    public func adding(_ more: [Unicode.Scalar: String]) -> TextEscaper {
        TextEscaper(replacements.merging(more) { _, new in new }, control: control)
    }

    // MARK: - the formats

    /// The inside of a double-quoted field as values print (`ItemSelected{item="b"}`).
    public static let quoted = TextEscaper(["\"": "\\\"", "\\": "\\\\", "\n": "\\n"])

    /// The inside of a JSON string.
    public static let json = TextEscaper(
        ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"],
        control: { $0.value == 0x7F ? nil : "\\u" + hex($0.value, digits: 4) })

    /// The inside of a double-quoted Lua string literal (reads back as the same text).
    public static let luaString = TextEscaper(
        ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"],
        control: { "\\\($0.value)" })

    /// XML 1.0 text and attribute values; characters XML 1.0 forbids become U+FFFD.
    public static let xml = TextEscaper(
        [
            "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;", "\n": "&#10;", "\t": "&#9;",
            "\r": "&#13;", "\u{FFFE}": "\u{FFFD}", "\u{FFFF}": "\u{FFFD}",
        ],
        control: { $0.value == 0x7F ? nil : "\u{FFFD}" })

    /// A double-quoted Graphviz label, every line left-justified (`\l`), other control
    /// characters as spaces.
    public static let dotLabel = TextEscaper(
        ["\\": "\\\\", "\"": "\\\"", "\n": "\\l", "\r": ""], control: { _ in " " })

    /// A field of a tab-separated line (the test workers' and the coverage records' wire
    /// format): `\`, tab, newline and CR as `\\`, `\t`, `\n`, `\r`. See ``unescapeField(_:)``.
    public static let field = TextEscaper(["\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"])

    /// The text a ``field`` escaper wrote.
    public static func unescapeField<S: StringProtocol>(_ text: S) -> String {
        var out = ""
        var it = text.unicodeScalars.makeIterator()
        while let scalar = it.next() {
            if scalar == "\\", let next = it.next() {
                switch next {
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                default: out.unicodeScalars.append(next)
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
