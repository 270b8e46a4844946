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
            record.defined = text.isEmpty ? nil : "f_spec.lua:\(text.count)"
            record.run = text.count + 1
            record.hook = text.count % 2 == 0
            record.limit = text.count % 3 == 0
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

/// A worker sends a file's results together with its end, but results that wait longer than
/// 20 ms go out from the timer thread: a worker killed in a long test (SIGKILL, a crash) has sent
/// the results of the tests that ended before it (found by the review: they were lost).
@Suite struct WorkerResultsTests {
    @Test func resultsOfEndedTestsReachTheParentBeforeAKillInALongTest() throws {
        let dir = try RunHarness.folder([
            "slow_spec.lua": """
            it("a", function() end)
            it("b", function() end)
            it("c", function() end)
            it("slow", function() local t = os.clock() while os.clock() - t < 4 do end end)
            """
        ])
        let binary = RunHarness.quote(try ResponderBinary.path())
        let script =
            "cd \(RunHarness.quote(dir)) || exit 1; "
            + "( printf 'S\\tslow_spec.lua\\n'; sleep 3 ) | \(binary) test --worker 3>out.txt & w=$!; "
            + "sleep 1.5; kill -9 $w; wait; cat out.txt"
        guard let out = TestProcess.run("/bin/sh", ["-c", script]) else {
            Issue.record("cannot spawn /bin/sh")
            return
        }
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("R\t") }.count == 3, "\(out.stdout)\(out.stderr)")
        #expect(lines.contains { $0.hasPrefix("R\t=a\t") && $0.contains("\tpassed\t") }, "\(out.stdout)")
        #expect(!lines.contains("E"), "\(out.stdout)")
    }
}
