import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 4: time to the first REPL prompt (the test runner is in the goals table).
func toolBench(responder: String) -> [Row] {
    var rows: [Row] = []
    // REPL: start, read the empty input, leave: an upper bound of the time to the first prompt
    var repl = Samples()
    for _ in 0..<20 {
        if let t = timeCommand([responder, "repl"], stdinPath: "/dev/null") { repl.add(Double(t)) }
    }
    if !repl.isEmpty {
        rows.append(
            Row(
                name: "`responder repl` start to first prompt and exit (upper bound, 20 runs)",
                ours: repl.text(1e6, "ms"), reference: "", ratio: nil, goal: "≤ 50 ms",
                verdict: repl.median <= 50e6 ? "met" : "MISSED"))
    }
    return rows
}
