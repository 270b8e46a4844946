import ArgumentParser
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Entry point: parses arguments and maps usage errors to exit status 2 (SPEC §3).
let arguments = Array(CommandLine.arguments.dropFirst())
if let fast = FastRun.parse(arguments) {
    // `responder run FILE …` with plain options: skip the general parser (start-up time).
    Console.flush()
    exit(fast.execute())
}
Responder.main(arguments)
