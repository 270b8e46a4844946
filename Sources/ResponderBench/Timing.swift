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

    var met: String {
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
func timeCommand(_ argv: [String], stdinPath: String? = nil) -> UInt64? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if let stdinPath { posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0) }
    var cargs = argv.map { strdup($0) } + [nil]
    defer { for p in cargs { free(p) } }
    var pid: pid_t = 0
    let start = nowNanos()
    let rc = posix_spawnp(&pid, argv[0], &actions, nil, &cargs, environ)
    guard rc == 0 else { return nil }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return nowNanos() - start
}

/// True when a command is on PATH.
func onPath(_ name: String) -> Bool {
    timeCommand(["sh", "-c", "command -v \(name)"]) != nil && system("command -v \(name) >/dev/null 2>&1") == 0
}
