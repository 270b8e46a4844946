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
        // ASCII bytes that may change: the control characters and the listed ASCII scalars
        var low: UInt64 = 0x0000_0000_FFFF_FFFF
        var high: UInt64 = 1 << 63  // U+007F
        for scalar in replacements.keys where scalar.isASCII {
            if scalar.value < 64 { low |= 1 << UInt64(scalar.value) } else { high |= 1 << UInt64(scalar.value - 64) }
        }
        mayChange = (low, high)
        replacesNonASCII = replacements.keys.contains { !$0.isASCII }
    }

    /// Bit `b` set (of the low word for bytes below 64, else the high word): ASCII byte `b` may
    /// be changed by this escaper.
    private let mayChange: (UInt64, UInt64)
    /// Whether a scalar beyond ASCII has a replacement.
    private let replacesNonASCII: Bool

    /// Whether escaping leaves `text` as it is (read byte by byte: most text has nothing to escape).
    private func leavesUnchanged<S: StringProtocol>(_ text: S) -> Bool {
        // one call for the bytes of a native string, not one generic call per byte
        if let answer = text.utf8.withContiguousStorageIfAvailable({ leavesUnchanged(bytes: $0) }) { return answer }
        return leavesUnchanged(bytes: text.utf8)
    }

    private func leavesUnchanged<Bytes: Sequence<UInt8>>(bytes: Bytes) -> Bool {
        for byte in bytes {
            if byte >= 0x80 {
                if replacesNonASCII { return false }
            } else if byte < 64 {
                if mayChange.0 & (1 << UInt64(byte)) != 0 { return false }
            } else if mayChange.1 & (1 << UInt64(byte - 64)) != 0 {
                return false
            }
        }
        return true
    }

    /// The escaped text.
    public func callAsFunction<S: StringProtocol>(_ text: S) -> String {
        if leavesUnchanged(text) { return String(text) }
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

    /// Appends the escaped text's UTF-8 bytes to `out` (text with nothing to escape is copied
    /// byte for byte, without making a string). Not generic: called from other modules, a
    /// generic version runs unspecialized, several times slower.
    public func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        let copied: Bool = text.withUTF8 { bytes in
            guard leavesUnchanged(bytes: bytes) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if !copied { out.append(contentsOf: callAsFunction(text).utf8) }
    }

    /// This escaper with more replacements.
    public func adding(_ more: [Unicode.Scalar: String]) -> TextEscaper {
        TextEscaper(replacements.merging(more) { _, new in new }, control: control)
    }

    // MARK: - the formats

    /// The inside of a double-quoted field as values print (`ItemSelected{item="b"}`): written as
    /// a Lua string literal (control characters escaped), so it reads back as the same text.
    public static var quoted: TextEscaper { luaString }

    /// The inside of a JSON string.
    public static let json = TextEscaper(
        ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"],
        control: { $0.value == 0x7F ? nil : "\\u" + hex($0.value, digits: 4) })

    /// The inside of a double-quoted Lua string literal (reads back as the same text).
    public static let luaString = TextEscaper(
        ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"],
        // three digits: a digit that follows must not read as part of the escape
        control: { "\\" + String(String($0.value + 1000).dropFirst()) })

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

    /// Text kept on one line of a terminal or a line-based format (a TAP test line, an entry of
    /// the coverage summary): control characters, C1 controls (U+0080–U+009F, NEL and a
    /// terminal's CSI among them) and the Unicode line and paragraph separators become spaces,
    /// so that no name forges a line of its own.
    public static let oneLine = TextEscaper(
        c1Controls.merging(["\u{2028}": " ", "\u{2029}": " "]) { a, _ in a }, control: { _ in " " })

    /// The lines of a YAML block scalar (TAP 13 diagnostics): what YAML refuses in a document or
    /// reads as a line break (C0 controls but tab and newline, DEL, C1 controls, U+2028, U+2029,
    /// U+FFFE, U+FFFF) becomes U+FFFD.
    public static let yamlBlock = TextEscaper(
        c1Controls.mapValues { _ in "\u{FFFD}" }.merging(
            ["\u{2028}": "\u{FFFD}", "\u{2029}": "\u{FFFD}", "\u{FFFE}": "\u{FFFD}", "\u{FFFF}": "\u{FFFD}"]
        ) { a, _ in a },
        control: { $0 == "\t" || $0 == "\n" ? nil : "\u{FFFD}" })

    /// U+0080–U+009F, each as a space.
    private static let c1Controls: [Unicode.Scalar: String] = Dictionary(
        uniqueKeysWithValues: (0x80...0x9F).map { (Unicode.Scalar(UInt8($0)), " ") })

    /// A field of a tab-separated line (the test workers' and the coverage records' wire
    /// format): `\`, tab, newline and CR as `\\`, `\t`, `\n`, `\r`. See ``unescapeField(_:)``.
    public static let field = TextEscaper(["\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"])

    /// The text a ``field`` escaper wrote.
    public static func unescapeField<S: StringProtocol>(_ text: S) -> String {
        // without a backslash there is nothing to undo
        let backslash = UInt8(ascii: "\\")
        let hasBackslash =
            text.utf8.withContiguousStorageIfAvailable { $0.contains(backslash) } ?? text.utf8.contains(backslash)
        if !hasBackslash { return String(text) }
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
