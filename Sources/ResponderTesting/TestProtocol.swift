import ResponderEngine
import ResponderLua

/// The line protocol between `responder test` and its workers (`responder test --worker`).
///
/// Parent → worker (stdin), one line per file:  `S<index>\t<path>` (spec) or `P<index>\t<path>`
/// (plain script), the index the file's place in the run's ``TestClaims`` (may be empty: no claim).
/// Worker → parent (fd 3), per file in the order given: `K` when another worker had claimed it
/// (skipped), else zero or more `R\t…` record lines, then `E` when the file is done. A record line is fifteen tab-separated fields: name, suite, test, status, message,
/// location, diff, trace, traceback, note, duration, warnings (each escaped, joined by newlines),
/// its flags (`L` a sandbox limit made it, `H` a hook's error; `-` neither), where the test is written, and which `--repeat` run made it. Each optional field is `-` (absent) or `=`
/// followed by the value with `\\`, tab, newline and CR escaped as `\\`, `\t`, `\n`, `\r`.
/// Worker stdout/stderr are left for the scripts' own `print` output and diagnostics.
enum TestProtocol {
    static let resultFD: Int32 = 3

    static func escape(_ s: String) -> String { TextEscaper.field(s) }

    static func unescape<S: StringProtocol>(_ s: S) -> String { TextEscaper.unescapeField(s) }

    /// A record as the line a worker writes (with its newline).
    static func encode(_ r: TestRecord) -> String { String(decoding: encodeBytes(r), as: UTF8.self) }

    /// A record as the bytes of the line a worker writes (with its newline): `R`, then the
    /// fields, tab-separated; an optional field is `-` when absent, else `=` and the escaped text.
    static func encodeBytes(_ record: TestRecord) -> [UInt8] {
        var r = record
        r.clipTexts(to: TestRecord.textLimit)
        var out: [UInt8] = []
        out.reserveCapacity(96 + r.name.utf8.count + r.suite.utf8.count + r.test.utf8.count)
        out.append(UInt8(ascii: "R"))
        func opt(_ s: String?) {
            out.append(9)
            guard let s else {
                out.append(UInt8(ascii: "-"))
                return
            }
            out.append(UInt8(ascii: "="))
            TextEscaper.field.append(s, to: &out)
        }
        opt(r.name)
        opt(r.suite)
        opt(r.test)
        out.append(9)
        out.append(contentsOf: r.status.rawValue.utf8)
        opt(r.message)
        opt(r.location)
        opt(r.diff)
        opt(r.trace)
        opt(r.traceback)
        opt(r.note)
        out.append(9)
        out.append(contentsOf: String(r.duration).utf8)
        // each warning escaped on its own first: a newline inside one does not split it
        if r.warnings.isEmpty {
            opt(nil)
        } else {
            var joined = ""
            for (i, w) in r.warnings.enumerated() {
                if i > 0 { joined += "\n" }
                joined += escape(w)
            }
            opt(joined)
        }
        out.append(9)
        if r.limit { out.append(UInt8(ascii: "L")) }
        if r.hook { out.append(UInt8(ascii: "H")) }
        if !r.limit && !r.hook { out.append(UInt8(ascii: "-")) }
        opt(r.defined)
        out.append(9)
        out.append(contentsOf: String(r.run).utf8)
        out.append(10)
        return out
    }

    static func decode(_ line: Substring, file: String) -> TestRecord? {
        decode(ArraySlice(line.utf8), file: file)
    }

    /// Reads a record line (without its newline) straight from the bytes a worker wrote: split on
    /// the tab byte (a field never holds one: escaped), a field copied as it is unless it holds a
    /// backslash (then unescaped).
    static func decode(_ line: ArraySlice<UInt8>, file: String) -> TestRecord? {
        var f: [Range<Int>] = []
        f.reserveCapacity(16)
        var start = line.startIndex
        for i in line.indices where line[i] == 9 {
            f.append(start..<i)
            start = i + 1
        }
        f.append(start..<line.endIndex)
        guard f.count == 16, f[0].count == 1, line[f[0].lowerBound] == UInt8(ascii: "R"),
            let status = TestStatus(rawValue: String(decoding: line[f[4]], as: UTF8.self))
        else { return nil }
        func unopt(_ r: Range<Int>) -> String? {
            guard !r.isEmpty, line[r.lowerBound] == UInt8(ascii: "=") else { return nil }
            let value = line[(r.lowerBound + 1)..<r.upperBound]
            let text = String(decoding: value, as: UTF8.self)
            return value.contains(UInt8(ascii: "\\")) ? unescape(text) : text
        }
        var record = TestRecord(
            file: file, name: unopt(f[1]) ?? "?", suite: unopt(f[2]) ?? "", test: unopt(f[3]) ?? "",
            status: status, message: unopt(f[5]), location: unopt(f[6]), diff: unopt(f[7]),
            trace: unopt(f[8]), traceback: unopt(f[9]), note: unopt(f[10]),
            duration: Double(String(decoding: line[f[11]], as: UTF8.self)) ?? 0)
        record.limit = line[f[13]].contains(UInt8(ascii: "L"))
        record.hook = line[f[13]].contains(UInt8(ascii: "H"))
        record.defined = unopt(f[14])
        record.run = max(1, Int(String(decoding: line[f[15]], as: UTF8.self)) ?? 1)
        if let warnings = unopt(f[12]) {
            record.warnings = warnings.split(separator: "\n", omittingEmptySubsequences: false).map(unescape)
        }
        return record
    }
}
