#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic time in nanoseconds.
func nowNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Median of `reps` runs of `body`, in nanoseconds.
func median(_ reps: Int, _ body: () -> UInt64) -> Double {
    var samples: [UInt64] = []
    for _ in 0..<reps { samples.append(body()) }
    samples.sort()
    return Double(samples[samples.count / 2])
}

/// Repeated measurements of one quantity: median and spread (min–max).
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values.filter { $0.isFinite } }

    mutating func add(_ value: Double) { if value.isFinite { values.append(value) } }

    var isEmpty: Bool { values.isEmpty }
    var median: Double {
        guard !values.isEmpty else { return .nan }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }

    /// "1.23 µs (1.20–1.31)": the median and the range, each divided by `scale`, with `unit`.
    func text(_ scale: Double, _ unit: String, _ decimals: Int = 2) -> String {
        guard !values.isEmpty else { return "—" }
        return "\(fmt(median / scale, decimals)) \(unit) (\(fmt(min / scale, decimals))–\(fmt(max / scale, decimals)))"
    }
}

/// A fresh private folder for the benchmark's files (under `$TMPDIR`), removed at exit by the
/// caller's choice; nil when none can be made.
func makeScratchFolder(_ name: String) -> String? {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? P_tmpdir
    var template = Array((base + "/" + name + "-XXXXXX").utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let p = mkdtemp(buffer.baseAddress!) else { return nil }
        return String(cString: p)
    }
}

/// Formats a number with a fixed count of decimals, without Foundation.
func fmt(_ value: Double, _ decimals: Int = 2) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
        if decimals == 0 { text = String(text[..<dot]) }
    } else if decimals > 0 {
        text += "." + String(repeating: "0", count: decimals)
    }
    return text
}

/// Pads a cell to a width (left-aligned).
func cell(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

/// One result row: what, ours, reference, ratio, goal.
struct Row {
    var name: String
    var ours: String
    var reference: String
    var ratio: Double?
    var goal: String
    /// Set when the goal is absolute (not a ratio): "met" or "MISSED".
    var verdict: String? = nil

    var met: String {
        if let verdict { return verdict }
        guard let ratio else { return "" }
        if goal.hasPrefix("≤ ") || goal.hasPrefix("<= ") {
            let bound = Double(goal.split(separator: " ")[1].dropLast()) ?? 0
            return ratio <= bound ? "met" : "MISSED"
        }
        if goal.hasPrefix("≥ ") {
            return ""
        }
        return ""
    }
}

/// Prints a table of rows.
func printTable(_ title: String, _ rows: [Row]) {
    print("\n## \(title)\n")
    print("| benchmark | ours | reference | ratio | goal | |")
    print("|---|---|---|---|---|---|")
    for r in rows {
        let ratio = r.ratio.map { fmt($0) + "×" } ?? ""
        print("| \(r.name) | \(r.ours) | \(r.reference) | \(ratio) | \(r.goal) | \(r.met) |")
    }
}

/// Spawns a command with stdout/stderr to /dev/null (or `input` as stdin) and waits; returns
/// the wall time in nanoseconds, or nil when it could not run.
func timeCommand(_ argv: [String], stdinPath: String? = nil, in directory: String? = nil) -> UInt64? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if let stdinPath { posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0) }
    var cargs = argv.map { strdup($0) } + [nil]
    defer { for p in cargs { free(p) } }
    var pid: pid_t = 0
    // the child starts in `directory` (the benchmark is single-threaded; the cwd is restored)
    var previous = [CChar](repeating: 0, count: 4096)
    if let directory {
        guard getcwd(&previous, previous.count) != nil, chdir(directory) == 0 else { return nil }
    }
    let start = nowNanos()
    let rc = posix_spawnp(&pid, argv[0], &actions, nil, &cargs, environ)
    if directory != nil { _ = chdir(previous) }
    guard rc == 0 else { return nil }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let elapsed = nowNanos() - start
    guard status == 0 else {
        printError("benchmark: `\(argv.joined(separator: " "))` failed (wait status \(status)); sample dropped")
        return nil
    }
    return elapsed
}

/// Writes a line to stderr.
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// True when a command is on PATH.
func onPath(_ name: String) -> Bool {
    system("command -v \(name) >/dev/null 2>&1") == 0
}
