import ArgumentParser
import ResponderLua
import ResponderTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Entry point: parses arguments and maps usage errors to exit status 2 (SPEC §3).
let arguments = Array(CommandLine.arguments.dropFirst())
if let fast = FastRun.parse(arguments) {
    // `responder run FILE …` with plain options: skip the general parser (start-up time).
    ProcessExit.exit(fast.execute())
}
if let settings = FastTest.parse(arguments) {
    // `responder test [PATH…]` without options: every value at its default
    ProcessExit.exit(FastTest.execute(settings))
}
if let options = FastWorker.parse(arguments) {
    // a worker of `responder test`, with the arguments its parent wrote: skip the general parser
    TestWorker.run(options: options)
}
Responder.main(arguments)
