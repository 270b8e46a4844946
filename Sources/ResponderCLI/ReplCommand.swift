import ArgumentParser
import ResponderKit
import ResponderLua
import ResponderREPL

/// `responder repl [--load FILE.lua]`: an interactive Lua prompt with the responder module.
///
/// On a terminal: prompts `> ` / `>> `, libedit line editing, history in
/// `~/.responder_history` (or `$RESPONDER_HISTORY`), Tab completion. When standard input is not a
/// terminal the lines are read plainly and **no prompts are printed**, so piped output holds only
/// results (values on stdout; errors, `interrupted!` and warnings on stderr).
struct ReplCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Explore scenarios interactively (Lua prompt with the responder module).",
        discussion: ExitStatusHelp.discussion(
            """
            Expressions print their values (nodes, events, outcomes and tables readably); statements \
            run; incomplete input continues on a '>> ' prompt. Dot commands: .help, .tree [selector], \
            .trace, .warnings, .reset, .load FILE, .quit. Ctrl-C interrupts running code, Ctrl-D leaves. \
            Each entry gets the full --max-instructions budget.
            """)
    )

    @Option(name: .customLong("load"), help: "A script to run before the first prompt.")
    var load: String?

    @OptionGroup var scenario: ScenarioFlags

    /// The session process that `ReplSupervisor` starts (see there).
    @Flag(help: .hidden)
    var session = false

    func validate() throws {
        try scenario.check()
    }

    func run() throws {
        if let load { try ScriptFile.check(load, command: "repl") }
        if !session {
            throw ExitCode(ReplSupervisor.run(sessionArguments: scenario.settings.arguments, load: load))
        }
        ReplSupervisor.beginSession(preloading: load != nil)
        let options = scenario.settings.options()
        let runtime: LuaRuntime
        do {
            runtime = try Scenario.makeRuntime(options)
        } catch {
            Stderr.write("error: \(error.message)\n")
            throw ExitCode(3)
        }
        let session = ReplSession(runtime: runtime)
        throw ExitCode(session.run(preload: load))
    }
}
