import ResponderEngine
import Testing

/// The escapers, byte by byte against their own tables (the unchanged-text shortcut must agree).
@Suite struct TextEscaperTests {
    static let escapers: [(String, TextEscaper)] = [
        ("quoted", .quoted), ("json", .json), ("luaString", .luaString), ("xml", .xml), ("dotLabel", .dotLabel),
        ("field", .field),
    ]

    /// What the escaper's table says one scalar becomes.
    private func expected(_ e: TextEscaper, _ scalar: Unicode.Scalar) -> String {
        if let r = e.replacements[scalar] { return r }
        if scalar.value < 0x20 || scalar.value == 0x7F, let r = e.control(scalar) { return r }
        return String(Character(scalar))
    }

    @Test(arguments: escapers.map(\.0))
    func everyScalarAloneAndInText(_ name: String) throws {
        let e = try #require(Self.escapers.first { $0.0 == name }?.1)
        var scalars = (0...0x7F).compactMap(Unicode.Scalar.init)
        scalars += ["é", "\u{2028}", "\u{FFFE}", "\u{FFFF}", "😀"]
        for scalar in scalars {
            let one = String(Character(scalar))
            #expect(e(one) == expected(e, scalar), "\(name) \(scalar.value)")
            #expect(e("ab" + one + "cd") == "ab" + expected(e, scalar) + "cd", "\(name) \(scalar.value)")
        }
        #expect(e("plain text, nothing to escape") == "plain text, nothing to escape")
        #expect(e("") == "")
    }
}
