/// The reports of busted's own output handlers, chosen with `-o`/`--output` (or a `.busted`
/// file's `output`): `utfTerminal`, `plainTerminal` and `TAP` print what busted 2.1.1 prints, so
/// that what reads busted's output reads ours (SPEC §3: "busted's: utfTerminal, plainTerminal,
/// TAP, junit, json"). `--format pretty|tap` are this tool's own formats.
package enum BustedReport {
    /// busted's status line: `1 success / 1 failure / 1 error / 1 pending : 0.000966 seconds`.
    package static func statusLine(_ records: [TestRecord], _ st: TestReport.Style, duration: Double) -> String {
        var s = TestSummary()
        for r in records { s.add(r) }
        func counted(_ n: Int, _ single: String, _ plural: String) -> String { n == 1 ? single : plural }
        return st.green(String(s.passed)) + " " + counted(s.passed, "success", "successes") + " / "
            + st.red(String(s.failed)) + " " + counted(s.failed, "failure", "failures") + " / "
            + st.magenta(String(s.errors)) + " " + counted(s.errors, "error", "errors") + " / "
            + st.yellow(String(s.skipped)) + " pending : " + st.bold(seconds(duration)) + " seconds"
    }

    /// busted's seconds: six decimals with the zeros after the last other digit removed, one
    /// digit kept (`0.5`, `1.0`, `0.000966`).
    static func seconds(_ s: Double) -> String {
        var text = TestReport.seconds(max(0, s))
        while text.hasSuffix("0"), let dot = text.firstIndex(of: "."), text.distance(from: dot, to: text.endIndex) > 2 {
            text.removeLast()
        }
        return text
    }

    /// `spec/a_spec.lua @ 3` from `spec/a_spec.lua:3`; nil without a line.
    static func place(_ location: String?) -> String? {
        guard let location, let colon = location.lastIndex(of: ":"),
            Int(location[location.index(after: colon)...]) != nil
        else { return nil }
        return String(location[..<colon]) + " @ " + String(location[location.index(after: colon)...])
    }

    /// The message busted shows for a failure or error: an assertion's with the place it failed
    /// first (`spec/a_spec.lua:3: Expected objects to be equal.`), an error's as raised.
    static func message(_ r: TestRecord) -> String {
        guard var m = r.message else { return "Nil error" }
        if r.status == .failed, let loc = r.location, !m.hasPrefix(loc + ": ") { m = loc + ": " + m }
        // what only this tool knows goes after busted's text: a diff, the dispatch an assertion
        // looked at, the warnings of a test
        if let d = r.diff { m += "\n" + d }
        if let t = r.trace, !t.isEmpty { m += "\ntrace:\n" + t }
        for w in r.warnings { m += "\n" + w }
        return m
    }

    /// The message of a `pending("why")` called inside a test, with the place it was called
    /// (`spec/a_spec.lua:6: why`); nil for a `pending` block or a call without a message.
    static func pendingMessage(_ r: TestRecord) -> String? {
        guard let m = r.message, !m.isEmpty else { return nil }
        guard let loc = r.location, !m.hasPrefix(loc + ": ") else { return m }
        return loc + ": " + m
    }

    /// `utfTerminal` (`plain` false) or `plainTerminal`: the report printed after the marks.
    package static func terminal(_ records: [TestRecord], _ st: TestReport.Style, duration: Double) -> String {
        let arrow = st.plain ? " -> " : " → "
        var out = "\n" + statusLine(records, st, duration: duration) + "\n"
        for r in records where r.status == .skipped {
            out += "\n" + st.yellow("Pending") + arrow
            out += place(r.location ?? r.defined).map { st.cyan($0) } ?? st.cyan(r.file)
            out += "\n" + st.bold(r.name)
            if let m = pendingMessage(r) { out += "\n" + m }
            out += "\n"
        }
        for status in [TestStatus.failed, .error] {
            for r in records where r.status == status {
                out += "\n" + (status == .failed ? st.red("Failure") : st.magenta("Error")) + arrow
                if let where_ = place(r.defined ?? r.location) {
                    out += st.cyan(where_) + "\n" + st.bold(r.name) + "\n" + message(r)
                } else {
                    out += st.cyan(message(r)) + "\n" + st.bold(r.name)
                }
                out += "\n"
            }
        }
        return out
    }

    /// `TAP`: `ok N - name`, `not ok N - name` with `# file @ line` and `# Failure message: …`,
    /// `ok N - # SKIP name`, and the plan `1..N` last.
    package static func tap(_ records: [TestRecord]) -> String {
        var out = ""
        for (i, r) in records.enumerated() {
            let n = i + 1
            switch r.status {
            case .passed:
                out += "ok \(n) - \(r.name)\n"
            case .skipped:
                let m = pendingMessage(r) ?? r.name
                out += "ok \(n) - # SKIP \(m)\n"
            case .failed, .error:
                out += "not ok \(n) - \(r.name)\n"
                if let where_ = place(r.defined ?? r.location) { out += "# \(where_)\n" }
                out += "# Failure message: " + TestReport.replacing(message(r), "\n", "\n# ") + "\n"
            }
        }
        out += "1..\(records.count)\n"
        return out
    }
}
