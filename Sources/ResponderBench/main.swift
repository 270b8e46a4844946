#if canImport(Glibc)
import Glibc
#endif

/// `responder-bench [--quick] [RESPONDER]`: measures and prints every figure the README quotes.
/// Build with `swift build -c release` and run `.build/release/responder-bench`.
let args = CommandLine.arguments.dropFirst()
let quick = args.contains("--quick")
let responder = args.first { !$0.hasPrefix("--") }
    ?? { () -> String in
        // next to this executable
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let dir = path.split(separator: "/").dropLast().joined(separator: "/")
        return "/" + dir + "/responder"
    }()

print("# ResponderSandbox benchmarks")
print("responder binary: \(responder.split(separator: "/").suffix(3).joined(separator: "/"))")
printTable("Foundation (issue 2)", foundationBench(responder: responder))
printTable("Dispatch (issue 3)", dispatchBench())
if !quick { printTable("Memory (issue 3)", memoryBench()) }
printTable("Daily tools (issue 4)", toolBench(responder: responder))
