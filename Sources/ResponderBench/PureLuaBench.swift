#if canImport(Glibc)
import Glibc
#endif
import CLua
import CLuaShim
import ResponderLua

/// Issue 14: the pure-Lua workload (recursion, sorting, string building, coroutines).
let pureLuaWorkload = """
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local f = fib(29)
local seed = 42
local function rand() seed = (seed * 1103515245 + 12345) % 2147483648 return seed end
local arr = {}
for i = 1, 150000 do arr[i] = rand() end
table.sort(arr)
table.sort(arr, function(a, b) return a > b end)
local parts = {}
for i = 1, 150000 do parts[#parts + 1] = ("%d:%s"):format(i, tostring(i * 2)):upper() end
local s = table.concat(parts, ",")
local acc = {}
for w in s:gmatch("[^,]+") do acc[#acc + 1] = w:sub(1, 3) .. w:reverse() end
local function gen(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
local sum = 0
for v in gen(300000) do sum = sum + v end
local total = 0
for i = 1, 30000 do
  local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
  local _, x = coroutine.resume(co, i)
  local _, y = coroutine.resume(co, x)
  total = total + y
end
print(f, #s, #acc, sum, total)
"""

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

/// "median (min–max)" in ms.
func spread(_ samples: [UInt64]) -> String {
    let s = samples.sorted()
    return "\(fmt(Double(s[s.count / 2]) / 1e6, 0)) ms (\(fmt(Double(s.first!) / 1e6, 0))–\(fmt(Double(s.last!) / 1e6, 0)))"
}

func medianOf(_ samples: [UInt64]) -> Double { Double(samples.sorted()[samples.count / 2]) }

/// `responder run` vs `lua5.4` on the same file, default limits and an explicit (exact) budget;
/// then how close the sampled budget estimate comes to the exact count.
func pureLuaBench(responder: String, reps: Int) -> [Row] {
    var rows: [Row] = []
    let path = "/tmp/responder-bench-pure.lua"
    guard FileText.write(pureLuaWorkload, to: path) else { return rows }
    guard onPath("lua5.4") else {
        rows.append(Row(name: "pure Lua vs lua5.4 (lua5.4 not installed)", ours: "", reference: "", ratio: nil, goal: "≤ 1.1×"))
        return rows
    }
    var lua: [UInt64] = [], ours: [UInt64] = [], exact: [UInt64] = []
    for _ in 0..<reps {
        if let t = cpuTimeOfCommand(["lua5.4", path]) { lua.append(t) }
        if let t = cpuTimeOfCommand([responder, "run", path]) { ours.append(t) }
        if let t = cpuTimeOfCommand([responder, "run", path, "--max-instructions", "100000000000"]) { exact.append(t) }
    }
    guard !lua.isEmpty, !ours.isEmpty, !exact.isEmpty else { return rows }
    let l = medianOf(lua)
    rows.append(Row(name: "pure-Lua workload, `responder run` (default limits) vs `lua5.4` (CPU, median of \(reps))",
                    ours: spread(ours), reference: spread(lua), ratio: medianOf(ours) / l, goal: "≤ 1.1×"))
    rows.append(Row(name: "same, `--max-instructions` given (exact count hook) vs `lua5.4`",
                    ours: spread(exact), reference: spread(lua), ratio: medianOf(exact) / l, goal: "—"))
    // budget exactness: the sampled estimate against the exact count of the same run
    func charged(exact: Bool) -> Int64? {
        let limits = LuaLimits(maxInstructions: 100_000_000_000, maxMemoryMiB: 512, exactInstructions: exact)
        guard let rt = try? LuaRuntime(limits: limits) else { return nil }
        let noPrint = "local print = function() end\n"
        guard (try? rt.runString(noPrint + pureLuaWorkload, chunkname: "=pure")) != nil else { return nil }
        return luashim_instructions_charged(rt.L)
    }
    if let counted = charged(exact: true) {
        var estimates: [Int64] = []
        for _ in 0..<max(3, reps / 2) { if let e = charged(exact: false) { estimates.append(e) } }
        estimates.sort()
        if !estimates.isEmpty {
            let m = Double(estimates[estimates.count / 2])
            let lo = Double(estimates.first!) / Double(counted), hi = Double(estimates.last!) / Double(counted)
            rows.append(Row(name: "sampled budget estimate / exact count, same workload (\(estimates.count) runs, range \(fmt(lo))–\(fmt(hi)))",
                            ours: "\(fmt(m / 1e6, 1)) M", reference: "\(fmt(Double(counted) / 1e6, 1)) M",
                            ratio: m / Double(counted), goal: "—"))
        }
    }
    return rows
}
