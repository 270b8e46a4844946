import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// `responder-bench [--quick] [RESPONDER]`: measures and prints every figure the README quotes.
/// Build with `swift build -c release` and run `.build/release/responder-bench`.
let args = CommandLine.arguments.dropFirst()
let quick = args.contains("--quick")
let responder =
    args.first { $0.hasPrefix("/") || $0.hasPrefix(".") }
    ?? { () -> String in
        // next to this executable
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let dir = path.split(separator: "/").dropLast().joined(separator: "/")
        return "/" + dir + "/responder"
    }()

/// `--only goals|purelua|dispatch|foundation|tools|explore` runs one section (`--only memory`:
/// just the memory per node, with where the bytes go); `--all` adds the
/// explore section (about a minute) to the default run.
let only = args.firstIndex(of: "--only").flatMap {
    args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil
}
let all = args.contains("--all")
func wanted(_ section: String) -> Bool {
    if let only { return only == section }
    return section != "explore" || all
}

let started = nowNanos()
var load = [Double](repeating: 0, count: 3)
getloadavg(&load, 3)
print("# ResponderSandbox benchmarks")
print("\nresponder: \(responder); load average at start: \(fmt(load[0])), \(fmt(load[1])), \(fmt(load[2])) (2 cores)")
print("Cells: median (min–max) of the runs; ratios are ours / reference of the medians.")
if only == "state-loop" {
    // profiling aid: create many states
    for _ in 0..<20_000 { _ = try? Scenario.makeRuntime(ScenarioOptions(limits: .defaults)) }
}
if only == "memory" { printTable("Memory per node (issue 13)", memoryBreakdown(count: 1_000_000)) }
if wanted("goals") { printTable("Goals of issue 13", goalsBench(responder: responder, quick: quick)) }
if wanted("purelua") {
    printTable("Pure Lua under the sandbox (issue 14)", pureLuaBench(responder: responder, reps: quick ? 3 : 7))
}
if wanted("dispatch") { printTable("Dispatch, more depths (issue 3)", dispatchBench(quick: quick)) }
if wanted("foundation") { printTable("Foundation (issue 2)", foundationBench()) }
if wanted("tools") { printTable("Daily tools (issue 4)", toolBench(responder: responder)) }
if wanted("explore") { printTable("Explore and coverage (issue 11)", exploreBench(responder: responder, quick: quick)) }
getloadavg(&load, 3)
print(
    "\nload average at the end: \(fmt(load[0])), \(fmt(load[1])), \(fmt(load[2])); \(fmt(Double(nowNanos() - started) / 1e9, 0)) s in all"
)
