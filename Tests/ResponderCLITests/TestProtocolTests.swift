import ResponderEngine
import Testing

@testable import ResponderTesting

/// The worker → parent record line reads back as it was written.
@Suite struct TestProtocolTests {
    @Test func recordsReadBackWhatWasWritten() throws {
        let texts = [
            "plain", "", "tab\there", "lines\nand\r\nmore", "back\\slash \\t not a tab", "=starts with equals", "-",
            "e\u{301}\tcombining before a tab", "emoji 😀\t", "\u{2028}",
        ]
        for text in texts {
            var record = TestRecord(
                file: "f_spec.lua", name: text, suite: "suite \(text)", test: text, status: .failed,
                message: text, location: nil, diff: text.isEmpty ? nil : text, trace: nil, traceback: text,
                note: nil, duration: 0.25)
            record.warnings = text.isEmpty ? [] : ["w1 \(text)", "w2"]
            let line = TestProtocol.encode(record)
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "\(text.debugDescription)")
            let back = try #require(TestProtocol.decode(Substring(line.dropLast()), file: "f_spec.lua"))
            #expect(back == record, "\(text.debugDescription)")
        }
    }

    @Test func snapshotFilesSitBesideTheirSpecs() {
        #expect(TestFramework.snapshotPath(for: "a_spec.lua") == "__snapshots__/a_spec.snap")
        #expect(TestFramework.snapshotPath(for: "./a_spec.lua") == "./__snapshots__/a_spec.snap")
        #expect(TestFramework.snapshotPath(for: "spec/ui/b_spec.lua") == "spec/ui/__snapshots__/b_spec.snap")
        #expect(TestFramework.snapshotPath(for: "/abs/c.lua") == "/abs/__snapshots__/c.snap")
        #expect(TestFramework.snapshotPath(for: "/c.lua") == "/__snapshots__/c.snap")
        #expect(TestFramework.snapshotPath(for: "spec/d_spec.txt") == "spec/__snapshots__/d_spec.txt.snap")
        #expect(TestFramework.snapshotPath(for: "spec/é😀_spec.lua") == "spec/__snapshots__/é😀_spec.snap")
    }

    @Test func escapedBytesAreTheEscapedText() {
        for text in ["", "plain", "a\\b", "\t\n\r", "é😀\t", "x\\"] {
            var out: [UInt8] = [1]
            TextEscaper.field.append(text, to: &out)
            #expect(out == [1] + Array(TextEscaper.field(text).utf8))
        }
    }

    @Test func fieldEscapingRoundTrips() {
        for text in ["", "plain", "a\\b", "\t\n\r", "\\t", "é😀", "x\\"] {
            #expect(TextEscaper.unescapeField(TextEscaper.field(text)) == text)
        }
        #expect(TextEscaper.unescapeField("no backslash, as is") == "no backslash, as is")
    }
}
