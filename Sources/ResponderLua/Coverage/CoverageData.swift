/// What a run exercised: lines of the user's Lua files, responders, declarations, and the
/// tappable nodes and controls of mounted trees. Plain data: it merges (across files, `--jobs`
/// workers, explore runs) and renders as LCOV, JSON and a text summary.
public struct CoverageData: Sendable, Equatable {
    /// One Lua file: every executable line with how often it ran (0 for misses).
    public struct FileLines: Sendable, Equatable {
        public var counts: [Int: Int]
        public init(counts: [Int: Int] = [:]) { self.counts = counts }
        public var found: Int { counts.count }
        public var hit: Int { counts.values.reduce(0) { $0 + ($1 > 0 ? 1 : 0) } }
    }

    /// One registration of a responder or declaration on a node (instances on the same node path
    /// made by the same line are summed).
    public struct Responder: Sendable, Equatable {
        /// `receiveEvent`, `handleError`, `triggers`, `handleAlertErrors`, …
        public var kind: String
        /// The filter type's name (responders) or nil.
        public var filter: String?
        /// The declared types (declarations).
        public var declared: [String]
        public var id: String?
        /// Registration file and line.
        public var file: String
        public var line: Int
        /// The node's path (`Screen > Grid > Item#b`) when it was last seen in a tree.
        public var node: String
        /// How many registrations were summed.
        public var instances = 1
        public var skipped = 0
        public var reached = 0
        public var handled = 0
        public var passed = 0
        public var threw = 0
        public var transformed = 0
        /// Declarations: types that passed, with counts.
        public var seen: [String: Int] = [:]

        public init(
            kind: String, filter: String?, declared: [String], id: String?, file: String, line: Int, node: String
        ) {
            self.kind = kind
            self.filter = filter
            self.declared = declared
            self.id = id
            self.file = file
            self.line = line
            self.node = node
        }

        /// `handleEvent(ItemSelected)`, `triggers(A, B)`, `receiveEvent`.
        public var label: String {
            if !declared.isEmpty { return "\(kind)(\(declared.joined(separator: ", ")))" }
            if let filter { return "\(kind)(\(filter))" }
            return kind
        }

        public var isDeclaration: Bool { kind == "triggers" || kind == "reports" }

        /// Declared types no value of which (nor of a descendant type) passed.
        public var neverPassed: [String] { declared.filter { (seen[$0] ?? 0) == 0 } }

        /// Merge key: same site, same node.
        var key: String { "\(file):\(line)\t\(label)\t\(id ?? "")\t\(node)" }
        /// LCOV function name: a pure function of the site (no commas: LCOV ends names there).
        public var functionName: String {
            var name = label.replacingAll(", ", with: "+") + ":\(line)"
            if let id { name += "[id=\(id)]" }
            return Self.lcovSafe(name)
        }

        /// `text` as part of an LCOV function name: LCOV ends a name at a comma and a record at a
        /// line break.
        static func lcovSafe(_ text: String) -> String {
            String(
                text.unicodeScalars.map { $0 == "," ? "+" : $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) })
        }

        mutating func add(_ other: Responder) {
            instances += other.instances
            skipped += other.skipped
            reached += other.reached
            handled += other.handled
            passed += other.passed
            threw += other.threw
            transformed += other.transformed
            for (t, n) in other.seen { seen[t, default: 0] += n }
        }
    }

    /// A tappable node or a control of a mounted tree, and how often simulated input drove it.
    public struct Control: Sendable, Equatable {
        /// `tap` for a node with tap actions, else the control's kind (`Button`, `Toggle`, …).
        public var kind: String
        public var node: String
        public var driven: Int
        public init(kind: String, node: String, driven: Int) {
            self.kind = kind
            self.node = node
            self.driven = driven
        }
        var key: String { "\(kind)\t\(node)" }
    }

    /// Lines by file path (as the chunk name gave it, `./` removed).
    public var files: [String: FileLines] = [:]
    /// Responders and declarations, by merge key.
    public var responders: [String: Responder] = [:]
    /// Tappable nodes and controls, by kind and path.
    public var controls: [String: Control] = [:]

    public init() {}

    public var isEmpty: Bool { files.isEmpty && responders.isEmpty && controls.isEmpty }

    /// Adds another run's data (counts summed, lines united).
    public mutating func merge(_ other: CoverageData) {
        for (path, f) in other.files {
            var mine = files[path] ?? FileLines()
            for (line, n) in f.counts { mine.counts[line, default: 0] += n }
            files[path] = mine
        }
        for (k, r) in other.responders {
            if var mine = responders[k] {
                mine.add(r)
                responders[k] = mine
            } else {
                responders[k] = r
            }
        }
        for (k, c) in other.controls {
            if var mine = controls[k] {
                mine.driven += c.driven
                controls[k] = mine
            } else {
                controls[k] = c
            }
        }
    }

    mutating func add(_ r: Responder) {
        if var mine = responders[r.key] {
            mine.add(r)
            responders[r.key] = mine
        } else {
            responders[r.key] = r
        }
    }

    mutating func add(_ c: Control) {
        if var mine = controls[c.key] {
            mine.driven += c.driven
            controls[c.key] = mine
        } else {
            controls[c.key] = c
        }
    }

    /// Responders in a stable order: file, line, label, node.
    public var sortedResponders: [Responder] {
        responders.values.sorted { ($0.file, $0.line, $0.label, $0.node) < ($1.file, $1.line, $1.label, $1.node) }
    }

    /// Controls in a stable order.
    public var sortedControls: [Control] {
        controls.values.sorted { ($0.node, $0.kind) < ($1.node, $1.kind) }
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
