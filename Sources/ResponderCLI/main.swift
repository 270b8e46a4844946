import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Entry point: parses arguments and maps usage errors to exit status 2 (SPEC §3).
Responder.main(CommandLine.arguments.dropFirst().map { $0 })
