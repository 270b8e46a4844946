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

    /// Where busted places a failure or error: the line of its `it` (or block), or, for an error
    /// of the file itself (which has no line of definition, `file:0`), the line that raised it.
    static func failurePlace(_ r: TestRecord) -> String? {
        let defined = r.defined.flatMap { $0.hasSuffix(":0") ? nil : $0 }
        return place(defined ?? r.location)
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
                if let where_ = failurePlace(r) {
                    out += st.cyan(where_) + "\n" + st.bold(r.name) + "\n" + message(r)
                } else {
                    out += st.cyan(message(r)) + "\n" + st.bold(r.name)
                }
                out += "\n"
            }
        }
        return out
    }

    /// busted's report of a run repeated with `--repeat` (`runs` > 1): each run reported on its
    /// own, as busted's handlers do at the end of each suite: the terminal handlers' header
    /// `Repeating all tests (run K of N) . . .`, the run's marks and its report; `TAP` a plan per
    /// run; `json` a document per run. `duration` (the whole run's) is shared out evenly.
    package static func perRun(
        _ records: [TestRecord], runs: Int, format: String, style: TestReport.Style, duration: Double
    ) -> String {
        var out = ""
        let share = duration / Double(max(1, runs))
        for run in 1...max(1, runs) {
            let mine = records.filter { $0.run == run }
            switch format {
            case "tap": out += tap(mine)
            case "json": out += json(mine, duration: share)
            default:
                out += "\nRepeating all tests (run \(run) of \(runs)) . . .\n\n"
                out += mine.filter { !$0.hook }.map { TestReport.mark($0, style) }.joined()
                out += terminal(mine, style, duration: share)
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
            // (names on one line and every message line a comment, CR LF and lone CR included:
            // a test name or message cannot start a TAP line of its own)
            let name = TestReport.escapingTAPDirectives(TestReport.tapName(r.name, escapingHash: false))
            switch r.status {
            case .passed:
                out += "ok \(n) - \(name)\n"
            case .skipped:
                let m = pendingMessage(r).map { TestReport.tapName($0, escapingHash: false) } ?? name
                out += "ok \(n) - # SKIP \(m)\n"
            case .failed, .error:
                out += "not ok \(n) - \(name)\n"
                if let where_ = failurePlace(r) { out += "# \(TestReport.tapName(where_, escapingHash: false))\n" }
                out += "# Failure message: " + TestReport.lines(message(r)).joined(separator: "\n# ") + "\n"
            }
        }
        out += "1..\(records.count)\n"
        return out
    }
}

extension BustedReport {
    /// `json`: busted's document (its base handler's lists `pendings`, `successes`, `failures`,
    /// `errors`, each entry `{ name, message, trace, element, isError }`, and `duration`), followed
    /// by this tool's `summary` and `tests` (what `--format json` prints), so that what reads
    /// either reads this.
    package static func json(_ records: [TestRecord], duration: Double) -> String {
        func list(_ status: TestStatus) -> String {
            let entries = records.filter { $0.status == status }.map(entry)
            return entries.isEmpty ? "[]" : "[\n    " + entries.joined(separator: ",\n    ") + "\n  ]"
        }
        let ours = TestReport.json(records, duration: duration)
        // (ours is `{\n  "summary": …}`: its members follow busted's)
        return "{\n  \"pendings\": \(list(.skipped)),\n  \"successes\": \(list(.passed)),\n"
            + "  \"failures\": \(list(.failed)),\n  \"errors\": \(list(.error)),\n"
            + "  \"duration\": \(TestReport.seconds(max(0, duration))),\n" + ours.dropFirst(2)
    }

    /// One entry as busted's `handler.format` makes it: the full name, the message (a failure's
    /// with its place first), the trace of where it ended (for a success, where it is written),
    /// the element (name, descriptor, attributes, duration and the trace of its definition) and,
    /// for errors, `isError`.
    static func entry(_ r: TestRecord) -> String {
        let isFile = r.test.isEmpty && r.suite.isEmpty && r.status == .error
        let defined = r.defined ?? r.location
        let element = [
            "\"name\": \(TestReport.jsonString(r.test.isEmpty ? r.name : r.test))",
            "\"descriptor\": \(TestReport.jsonString(isFile ? "file" : "it"))",
            "\"attributes\": {}",
            "\"duration\": \(TestReport.seconds(max(0, r.duration)))",
            "\"trace\": \(trace(defined, traceback: nil, message: nil))",
        ]
        var fields = ["\"name\": \(TestReport.jsonString(r.name))"]
        switch r.status {
        case .passed:
            fields.append("\"trace\": \(trace(defined, traceback: nil, message: nil))")
        case .skipped:
            let m = pendingMessage(r)
            if let m { fields.append("\"message\": \(TestReport.jsonString(m))") }
            fields.append("\"trace\": \(trace(r.location ?? defined, traceback: nil, message: m))")
        case .failed, .error:
            let m = message(r)
            fields.append("\"message\": \(TestReport.jsonString(m))")
            fields.append("\"trace\": \(trace(r.location ?? defined, traceback: r.traceback, message: m))")
            if r.status == .error { fields.append("\"isError\": true") }
        }
        fields.append("\"element\": {" + element.joined(separator: ", ") + "}")
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// busted's trace of a place: `{ source = "@file", short_src = "file", currentline = N,
    /// traceback, message }` (those known).
    static func trace(_ location: String?, traceback: String?, message: String?) -> String {
        var fields: [String] = []
        if let location, let colon = location.lastIndex(of: ":"),
            let line = Int(location[location.index(after: colon)...])
        {
            let file = String(location[..<colon])
            fields += [
                "\"source\": \(TestReport.jsonString("@" + file))", "\"short_src\": \(TestReport.jsonString(file))",
                "\"currentline\": \(line)",
            ]
        }
        if let traceback { fields.append("\"traceback\": \(TestReport.jsonString(traceback))") }
        if let message { fields.append("\"message\": \(TestReport.jsonString(message))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}
