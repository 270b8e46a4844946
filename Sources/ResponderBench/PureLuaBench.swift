import CLua
import CLuaShim
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14: the pure-Lua workload, in four parts (recursion, sorting, string building,
/// coroutines); `pureLuaWorkload` is all four in one file.
let pureLuaParts: [(name: String, code: String)] = [
    (
        "recursion (fib 32)",
        """
        local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
        print(fib(32))
        """
    ),
    (
        "sorting (2 × 200,000 numbers, one with a Lua comparator)",
        """
        local seed = 42
        local function rand() seed = (seed * 1103515245 + 12345) % 2147483648 return seed end
        local arr = {}
        for i = 1, 200000 do arr[i] = rand() end
        table.sort(arr)
        table.sort(arr, function(a, b) return a > b end)
        print(arr[1])
        """
    ),
    (
        "string building (format, concat, gmatch, 200,000 pieces)",
        """
        local parts = {}
        for i = 1, 200000 do parts[#parts + 1] = ("%d:%s"):format(i, tostring(i * 2)):upper() end
        local s = table.concat(parts, ",")
        local acc = {}
        for w in s:gmatch("[^,]+") do acc[#acc + 1] = w:sub(1, 3) .. w:reverse() end
        print(#s, #acc)
        """
    ),
    (
        "coroutines (a 1,000,000-value generator, 100,000 short coroutines)",
        """
        local function gen(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
        local sum = 0
        for v in gen(1000000) do sum = sum + v end
        local total = 0
        for i = 1, 100000 do
          local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
          local _, x = coroutine.resume(co, i)
          local _, y = coroutine.resume(co, x)
          total = total + y
        end
        print(sum, total)
        """
    ),
]

let pureLuaWorkload = pureLuaParts.map { "do\n\($0.code)\nend" }.joined(separator: "\n")

/// CPU time (user + system) of a child process in nanoseconds, or nil when it did not run or
/// failed. CPU time, not wall time: the development VM is shared and wall times move by 2-4x.
func cpuTimeOfCommand(_ argv: [String]) -> UInt64? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var cargs = argv.map { strdup($0) } + [nil]
    defer { for p in cargs { free(p) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, argv[0], &actions, nil, &cargs, environ) == 0 else { return nil }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { return nil }
    let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1000
    let sys = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1000
    return user + sys
}

/// `responder run` vs `lua5.4` on the same files (CPU time, alternating), default limits; the
/// whole workload with an explicit (exact) budget; how close the sampled budget estimate comes
/// to the exact count.
func pureLuaBench(responder: String, reps: Int) -> [Row] {
    var rows: [Row] = []
    guard onPath("lua5.4") else {
        rows.append(
            Row(name: "pure Lua vs lua5.4 (lua5.4 not installed)", ours: "", reference: "", ratio: nil, goal: "≤ 1.1×"))
        return rows
    }
    guard let dir = makeScratchFolder("responder-bench-pure") else { return rows }
    defer { removeTree(dir) }
    var files: [String] = []
    for (i, part) in pureLuaParts.enumerated() {
        let path = "\(dir)/part\(i).lua"
        guard FileText.write(part.code, to: path) else { return rows }
        files.append(path)
    }
    var lua = Array(repeating: Samples(), count: files.count)
    var ours = lua
    var luaTotal = Samples()
    var oursTotal = Samples()
    var exactTotal = Samples()
    for file in files {
        _ = cpuTimeOfCommand(["lua5.4", file])
        _ = cpuTimeOfCommand([responder, "run", file])
    }
    for _ in 0..<reps {
        var l = 0.0
        var o = 0.0
        var e = 0.0
        for (i, file) in files.enumerated() {
            let a = cpuTimeOfCommand(["lua5.4", file]).map { Double($0) } ?? .nan
            let b = cpuTimeOfCommand([responder, "run", file]).map { Double($0) } ?? .nan
            let c =
                cpuTimeOfCommand([responder, "run", file, "--max-instructions", "100000000000"]).map { Double($0) }
                ?? .nan
            lua[i].add(a)
            ours[i].add(b)
            l += a
            o += b
            e += c
        }
        luaTotal.add(l)
        oursTotal.add(o)
        exactTotal.add(e)
    }
    rows.append(
        Row(
            name:
                "pure-Lua workload, all four parts: `responder run` (default limits) vs `lua5.4` (CPU time, \(reps) runs each, alternating)",
            ours: oursTotal.text(1e6, "ms", 0), reference: luaTotal.text(1e6, "ms", 0),
            ratio: oursTotal.median / luaTotal.median, goal: "≤ 1.1×"))
    for (i, part) in pureLuaParts.enumerated() {
        rows.append(
            Row(
                name: "… \(part.name)", ours: ours[i].text(1e6, "ms", 0), reference: lua[i].text(1e6, "ms", 0),
                ratio: ours[i].median / lua[i].median, goal: "—"))
    }
    rows.append(
        Row(
            name: "all four with `--max-instructions` given (exact count hook) vs `lua5.4`",
            ours: exactTotal.text(1e6, "ms", 0), reference: luaTotal.text(1e6, "ms", 0),
            ratio: exactTotal.median / luaTotal.median, goal: "—"))
    // budget exactness: the sampled estimate against the exact count of the same run
    func charged(exact: Bool) -> Int64? {
        let limits = LuaLimits(maxInstructions: 100_000_000_000, maxMemoryMiB: 512, exactInstructions: exact)
        guard let rt = try? LuaRuntime(limits: limits) else { return nil }
        let noPrint = "local print = function() end\n"
        guard (try? rt.runString(noPrint + pureLuaWorkload, chunkname: "=pure")) != nil else { return nil }
        return luashim_instructions_charged(rt.L)
    }
    if let counted = charged(exact: true) {
        var estimates = Samples()
        for _ in 0..<max(3, reps / 2) { if let e = charged(exact: false) { estimates.add(Double(e)) } }
        if !estimates.isEmpty {
            rows.append(
                Row(
                    name:
                        "sampled budget estimate / exact count, same workload (\(estimates.values.count) runs; range \(fmt(estimates.min / Double(counted)))–\(fmt(estimates.max / Double(counted))))",
                    ours: "\(fmt(estimates.median / 1e6, 1)) M", reference: "\(fmt(Double(counted) / 1e6, 1)) M",
                    ratio: estimates.median / Double(counted), goal: "—"))
        }
    }
    return rows
}
