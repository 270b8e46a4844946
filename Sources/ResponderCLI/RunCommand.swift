import ArgumentParser
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// `responder run FILE.lua`: runs one scenario script.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a Lua scenario script.",
        discussion: ExitStatusHelp.text
    )

    @Argument(help: "The script to run.")
    var file: String

    @OptionGroup var scenario: ScenarioFlags

    @Flag(help: "Print each top-level dispatch's trace to stderr.")
    var trace = false

    @OptionGroup var coverageOptions: CoverageOptions

    @Argument(parsing: .postTerminator, help: "Arguments passed to the script as `arg`.")
    var arguments: [String] = []

    func validate() throws {
        try scenario.check()
        try coverageOptions.check()
    }

    func run() throws {
        try ScriptFile.check(file, command: "run")
        let outcome = ScriptRunner.run(
            file: file, arguments: arguments, options: scenario.settings.options(trace: trace),
            coverage: coverageOptions.coverage ? coverageOptions : nil)
        throw ExitCode(outcome)
    }
}
