#if canImport(Glibc)
import Glibc
#endif
import ResponderLua

/// Issue 4: `responder test` over 500 small specs vs busted; time to the first REPL prompt.
func toolBench(responder: String) -> [Row] {
    var rows: [Row] = []
    let dir = "/tmp/responder-bench-specs"
    mkdir(dir, 0o755)
    for i in 0..<500 {
        FileText.write("""
        describe("file \(i)", function()
          local t
          before_each(function() t = { 1, 2, 3 } end)
          it("adds", function() assert.are.equal(6, t[1] + t[2] + t[3]) end)
          it("compares tables", function() assert.are.same({ a = { \(i) } }, { a = { \(i) } }) end)
          it("checks truthiness", function() assert.is_true(#t == 3); assert.is_nil(t.x) end)
        end)
        """, to: "\(dir)/file\(i)_spec.lua")
    }
    if onPath("busted") {
        var ours: [UInt64] = [], theirs: [UInt64] = []
        for _ in 0..<3 {
            if let t = timeCommand([responder, "test", dir]) { ours.append(t) }
            if let t = timeCommand(["busted", "--pattern=_spec", dir]) { theirs.append(t) }
        }
        ours.sort(); theirs.sort()
        let o = Double(ours[ours.count / 2]), b = Double(theirs[theirs.count / 2])
        rows.append(Row(name: "`responder test` vs `busted`, 500 small spec files (wall)",
                        ours: "\(fmt(o / 1e6, 0)) ms", reference: "\(fmt(b / 1e6, 0)) ms", ratio: o / b, goal: "≤ 0.5×"))
    } else {
        rows.append(Row(name: "`responder test` vs `busted` (busted not installed)", ours: "", reference: "", ratio: nil, goal: "≤ 0.5×"))
    }
    // REPL: start, read the empty input, leave: an upper bound of the time to the first prompt
    var repl: [UInt64] = []
    for _ in 0..<20 {
        if let t = timeCommand([responder, "repl"], stdinPath: "/dev/null") { repl.append(t) }
    }
    repl.sort()
    if !repl.isEmpty {
        rows.append(Row(name: "`responder repl` start to first prompt and exit (upper bound)",
                        ours: "\(fmt(Double(repl[repl.count / 2]) / 1e6)) ms", reference: "", ratio: nil, goal: "≤ 50 ms"))
    }
    return rows
}
