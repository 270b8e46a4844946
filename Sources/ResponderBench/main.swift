#if canImport(Glibc)
import Glibc
#endif
import ResponderKit
import ResponderLua

/// `responder-bench [--quick] [RESPONDER]`: measures and prints every figure the README quotes.
/// Build with `swift build -c release` and run `.build/release/responder-bench`.
let args = CommandLine.arguments.dropFirst()
let quick = args.contains("--quick")
let responder = args.first { $0.hasPrefix("/") || $0.hasPrefix(".") }
    ?? { () -> String in
        // next to this executable
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let dir = path.split(separator: "/").dropLast().joined(separator: "/")
        return "/" + dir + "/responder"
    }()

/// `--only foundation|purelua|dispatch|memory|tools|explore` runs one section.
let only = args.firstIndex(of: "--only").flatMap { args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil }
func wanted(_ section: String) -> Bool { only == nil || only == section }

print("# ResponderSandbox benchmarks")
if only == "state-loop" {
    // profiling aid: create many states
    for _ in 0..<20_000 { _ = try? Scenario.makeRuntime(ScenarioOptions(limits: .defaults)) }
}
if wanted("foundation") { printTable("Foundation (issue 2)", foundationBench(responder: responder)) }
if wanted("purelua") { printTable("Pure Lua under the sandbox (issue 14)", pureLuaBench(responder: responder, reps: quick ? 3 : 7)) }
if wanted("dispatch") { printTable("Dispatch (issue 3)", dispatchBench()) }
if wanted("memory") && !quick { printTable("Memory (issue 3)", memoryBench()) }
if wanted("tools") { printTable("Daily tools (issue 4)", toolBench(responder: responder)) }
if wanted("explore") { printTable("Explore and coverage (issue 11)", exploreBench(responder: responder, quick: quick)) }
