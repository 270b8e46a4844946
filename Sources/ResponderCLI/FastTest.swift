import ArgumentParser

/// A fast path for the most common `test` command line, `responder test [PATH…]` with no option:
/// every value is then its default, so the general parser's start-up (about 20 M instructions,
/// 7 ms, paid before any worker starts) is skipped. Anything with an option (or `--`) returns nil
/// and goes through ArgumentParser, which owns help and error messages. A test checks that
/// both readings give the same ``TestSettings``.
enum FastTest {
    static func parse(_ args: [String]) -> TestSettings? {
        guard args.first == "test" else { return nil }
        let paths = Array(args.dropFirst())
        guard paths.allSatisfy({ !$0.hasPrefix("-") }) else { return nil }
        return TestSettings(paths: paths)
    }

    /// Runs the files; returns the exit status.
    static func execute(_ settings: TestSettings) -> Int32 {
        do {
            try settings.execute()
            return 0
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            Stderr.write("error: \(error)\n")
            return 1
        }
    }
}
