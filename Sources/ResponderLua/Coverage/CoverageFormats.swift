import ResponderEngine

/// Renderings of ``CoverageData``: LCOV, JSON, the text summary and the line form the test
/// workers send to their parent.
extension CoverageData {
    // MARK: - LCOV

    /// The LCOV trace file (geninfo(1) format, as lcov 1.x and 2.x read it): per file `SF`,
    /// responders and declarations as `FN`/`FNDA` at their registration line, `DA` for every
    /// executable line, totals; files sorted by path. Test names are left empty (lcov rejects
    /// most characters there). Files without line data are left out (lcov drops them anyway).
    public func lcov() -> String {
        var out = ""
        let bySite = Dictionary(grouping: responders.values, by: \.file)
        for path in files.keys.sorted() {
            guard let f = files[path], !f.counts.isEmpty else { continue }
            out += "TN:\nSF:\(path)\n"
            // one function per entry of the summary: named for its site, and for its node too when
            // the site registered on several nodes (a loop's registrations were one function,
            // hit when any was: 100 % of functions where the summary said 1 of 3 reached; found
            // by an acceptance probe)
            let entries = (bySite[path] ?? []).filter { f.counts[$0.line] != nil }
            let nodesPerSite = Dictionary(grouping: entries, by: \.functionName).mapValues {
                Set($0.map(\.node)).count
            }
            var functions: [String: (line: Int, count: Int)] = [:]
            for r in entries {
                var name = r.functionName
                if nodesPerSite[name, default: 1] > 1 { name += Responder.lcovSafe(" on \(r.node)") }
                functions[name, default: (r.line, 0)].count += r.reached
            }
            let ordered = functions.sorted { ($0.value.line, $0.key) < ($1.value.line, $1.key) }
            for (name, v) in ordered { out += "FN:\(v.line),\(name)\n" }
            for (name, v) in ordered { out += "FNDA:\(v.count),\(name)\n" }
            out += "FNF:\(ordered.count)\nFNH:\(ordered.filter { $0.value.count > 0 }.count)\n"
            for line in f.counts.keys.sorted() { out += "DA:\(line),\(f.counts[line]!)\n" }
            out += "LF:\(f.found)\nLH:\(f.hit)\nend_of_record\n"
        }
        return out
    }

    // MARK: - text

    /// The summary printed at the end of a run: per-file line table, then the responders no
    /// dispatch reached, declared types no value passed, and tappable nodes and controls no
    /// input drove.
    public func summary() -> String {
        var out = ""
        if !files.isEmpty {
            let paths = files.keys.sorted()
            let width = max(4, paths.map(\.count).max() ?? 0, 5)
            func row(_ name: String, _ found: Int, _ hit: Int) -> String {
                let pct = found == 0 ? "-" : CoverageData.percent(hit, found)
                return name + String(repeating: " ", count: width - name.count)
                    + pad(String(found), 8) + pad(String(hit), 8) + pad(pct, 9) + "\n"
            }
            out +=
                "File" + String(repeating: " ", count: width - 4) + pad("Lines", 8) + pad("Hit", 8) + pad("Cover", 9)
                + "\n"
            var tf = 0
            var th = 0
            for p in paths {
                let f = files[p]!
                tf += f.found
                th += f.hit
                out += row(TextEscaper.oneLine(p), f.found, f.hit)
            }
            out += row("Total", tf, th)
        }
        // (names, ids and paths the script chose are kept on one line: none forges another line
        // of the summary; found by an adversary probe)
        let all = sortedResponders
        let handlers = all.filter { !$0.isDeclaration }
        let unreached = handlers.filter { $0.reached == 0 }
        out += "Responders: \(handlers.count - unreached.count) of \(handlers.count) reached\n"
        for r in unreached {
            out +=
                TextEscaper.oneLine(
                    "  never reached: \(r.file):\(r.line) \(r.label)\(r.id.map { " [id=\($0)]" } ?? "") on \(r.node)")
                + "\n"
        }
        let declarations = all.filter(\.isDeclaration)
        if !declarations.isEmpty {
            let partial = declarations.filter { !$0.neverPassed.isEmpty }
            out +=
                "Declarations: \(declarations.count - partial.count) of \(declarations.count) saw every declared type\n"
            for r in partial {
                out +=
                    TextEscaper.oneLine(
                        "  never passed: \(r.file):\(r.line) \(r.label) on \(r.node): \(r.neverPassed.joined(separator: ", "))"
                    )
                    + "\n"
            }
        }
        let controls = sortedControls
        if !controls.isEmpty {
            let idle = controls.filter { $0.driven == 0 }
            out += "Tappable nodes and controls: \(controls.count - idle.count) of \(controls.count) driven\n"
            for c in idle { out += TextEscaper.oneLine("  never driven: \(c.kind) \(c.node)") + "\n" }
        }
        return out
    }

    static func percent(_ hit: Int, _ found: Int) -> String {
        let tenths = (hit * 1000 + found / 2) / max(found, 1)
        return "\(tenths / 10).\(tenths % 10)%"
    }

    private func pad(_ s: String, _ width: Int) -> String {
        String(repeating: " ", count: max(1, width - s.count)) + s
    }

    // MARK: - JSON

    /// The JSON form (`--coverage-format json`).
    public func json() -> String {
        var out = "{\n  \"files\": ["
        let paths = files.keys.sorted()
        for (i, p) in paths.enumerated() {
            let f = files[p]!
            out += i == 0 ? "\n" : ",\n"
            let lines = f.counts.keys.sorted().map { "\"\($0)\": \(f.counts[$0]!)" }.joined(separator: ", ")
            out +=
                "    {\"path\": \(JSONText.string(p)), \"lines\": \(f.found), \"hit\": \(f.hit), \"counts\": {\(lines)}}"
        }
        out += paths.isEmpty ? "],\n" : "\n  ],\n"
        out += "  \"responders\": ["
        let rs = sortedResponders
        for (i, r) in rs.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            var fields = [
                "\"kind\": \(JSONText.string(r.kind))",
                "\"label\": \(JSONText.string(r.label))",
                "\"file\": \(JSONText.string(r.file))", "\"line\": \(r.line)",
                "\"node\": \(JSONText.string(r.node))",
                "\"instances\": \(r.instances)", "\"reached\": \(r.reached)", "\"skipped\": \(r.skipped)",
                "\"handled\": \(r.handled)", "\"passed\": \(r.passed)", "\"threw\": \(r.threw)",
                "\"transformed\": \(r.transformed)",
            ]
            if let f = r.filter { fields.append("\"filter\": \(JSONText.string(f))") }
            if let id = r.id { fields.append("\"id\": \(JSONText.string(id))") }
            if r.isDeclaration {
                let seen = r.seen.keys.sorted().map { "\(JSONText.string($0)): \(r.seen[$0]!)" }.joined(separator: ", ")
                fields.append("\"declared\": [\(r.declared.map(JSONText.string).joined(separator: ", "))]")
                fields.append("\"seen\": {\(seen)}")
                fields.append("\"neverPassed\": [\(r.neverPassed.map(JSONText.string).joined(separator: ", "))]")
            }
            out += "    {" + fields.joined(separator: ", ") + "}"
        }
        out += rs.isEmpty ? "],\n" : "\n  ],\n"
        out += "  \"controls\": ["
        let cs = sortedControls
        for (i, c) in cs.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            out +=
                "    {\"kind\": \(JSONText.string(c.kind)), \"node\": \(JSONText.string(c.node)), \"driven\": \(c.driven)}"
        }
        out += cs.isEmpty ? "]\n" : "\n  ]\n"
        return out + "}\n"
    }

    // MARK: - the worker line form

    /// Lines a test worker sends its parent (`C…\t` records; fields escaped as the test protocol does).
    public func wireLines() -> [String] {
        var lines: [String] = []
        for p in files.keys.sorted() {
            let f = files[p]!
            let counts = f.counts.keys.sorted().map { "\($0):\(f.counts[$0]!)" }.joined(separator: ",")
            lines.append("CL\t" + Wire.escape(p) + "\t" + counts)
        }
        for r in sortedResponders {
            let seen = r.seen.keys.sorted().map { Wire.escape($0) + "\u{1}" + String(r.seen[$0]!) }.joined(
                separator: "\u{2}")
            let fields: [String] = [
                "CR", Wire.escape(r.kind), Wire.opt(r.filter), r.declared.map(Wire.escape).joined(separator: "\u{2}"),
                Wire.opt(r.id), Wire.escape(r.file), String(r.line), Wire.escape(r.node), String(r.instances),
                String(r.skipped), String(r.reached), String(r.handled), String(r.passed), String(r.threw),
                String(r.transformed), seen,
            ]
            lines.append(fields.joined(separator: "\t"))
        }
        for c in sortedControls {
            lines.append("CC\t" + Wire.escape(c.kind) + "\t" + Wire.escape(c.node) + "\t" + String(c.driven))
        }
        return lines
    }

    /// Adds one line made by ``wireLines()``; false when it is not one.
    @discardableResult
    public mutating func addWireLine<S: StringProtocol>(_ line: S) -> Bool {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard let tag = f.first else { return false }
        switch tag {
        case "CL" where f.count == 3:
            var lines = FileLines()
            for pair in f[2].split(separator: ",") {
                let kv = pair.split(separator: ":")
                guard kv.count == 2, let l = Int(kv[0]), let n = Int(kv[1]) else { return false }
                lines.counts[l] = n
            }
            var one = CoverageData()
            one.files[Wire.unescape(f[1])] = lines
            merge(one)
        case "CR" where f.count == 16:
            guard let line = Int(f[6]), let instances = Int(f[8]) else { return false }
            let declared = f[3].isEmpty ? [] : f[3].split(separator: "\u{2}").map { Wire.unescape($0) }
            var r = Responder(
                kind: Wire.unescape(f[1]), filter: Wire.unopt(f[2]), declared: declared,
                id: Wire.unopt(f[4]), file: Wire.unescape(f[5]), line: line, node: Wire.unescape(f[7]))
            r.instances = instances
            r.skipped = Int(f[9]) ?? 0
            r.reached = Int(f[10]) ?? 0
            r.handled = Int(f[11]) ?? 0
            r.passed = Int(f[12]) ?? 0
            r.threw = Int(f[13]) ?? 0
            r.transformed = Int(f[14]) ?? 0
            for pair in f[15].split(separator: "\u{2}") {
                let kv = pair.split(separator: "\u{1}")
                if kv.count == 2, let n = Int(kv[1]) { r.seen[Wire.unescape(kv[0]), default: 0] += n }
            }
            add(r)
        case "CC" where f.count == 4:
            add(Control(kind: Wire.unescape(f[1]), node: Wire.unescape(f[2]), driven: Int(f[3]) ?? 0))
        default:
            return false
        }
        return true
    }
}

/// Escaping for tab-separated lines: `\\`, tab, newline and CR as `\\\\`, `\\t`, `\\n`, `\\r`;
/// optional fields are `-` (absent) or `=value`.
enum Wire {
    /// ``TextEscaper/field``, with the record separators U+0001 and U+0002 as spaces.
    static let escaper = TextEscaper.field.adding(["\u{1}": " ", "\u{2}": " "])

    static func escape<S: StringProtocol>(_ s: S) -> String { escaper(s) }

    static func unescape<S: StringProtocol>(_ s: S) -> String { TextEscaper.unescapeField(s) }

    static func opt(_ s: String?) -> String { s.map { "=" + escape($0) } ?? "-" }
    static func unopt<S: StringProtocol>(_ s: S) -> String? {
        guard s.first == "=" else { return nil }
        return unescape(s.dropFirst())
    }
}

/// JSON string literals without Foundation.
public enum JSONText {
    /// `s` as a JSON string literal.
    public static func string(_ s: String) -> String { "\"" + TextEscaper.json(s) + "\"" }
}
