import CLua
import CLuaShim
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// One REPL session over a scenario runtime, following `lua.c`: an entry is first compiled as
/// `return <text>` (an expression, whose values are printed), else as a statement; a syntax
/// error ending in `<eof>` means the entry is incomplete and another line is read (`>> `).
/// Errors are printed and never end the session.
package final class ReplSession {
    private let runtime: LuaRuntime
    private var L: OpaquePointer { runtime.L }
    private var reader: ReplLineReader!
    private var pending: [String] = []
    private static let helperKey = "responder.repl"
    /// The exit status that asks the supervisor (`responder repl`) for a new session when an
    /// entry ran code that could not be stopped.
    public static let restartStatus: Int32 = 75

    static let help = """
        Type Lua: expressions print their values, statements run; unfinished input continues on '>> '.
          .help              this text
          .tree [selector]   the mounted tree (or the subtree at selector) with each node's responders
          .trace             the last dispatch's trace
          .warnings          the recorded safety warnings
          .reset             responder.reset(): clear the tree, warnings, alert, traces and clock
          .load FILE         run a Lua file in this session
          .quit              leave (Ctrl-D too)
        Ctrl-C interrupts running code (or discards the line being typed). Tab completes globals,
        fields (tbl.na<Tab>) and methods (node:tr<Tab>).
        """

    package init(runtime: LuaRuntime) {
        self.runtime = runtime
    }

    /// Runs until end of input or `.quit`; returns the exit status.
    package func run(preload: String?) -> Int32 {
        installHelpers()
        ResponderModule.materializeNames(runtime)
        ReplSignals.unblock()
        let interactive = Console.isTerminal(0)
        if interactive && Libedit.shared == nil {
            Console.error("note: libedit not found (apt-get install libedit2): no line editing or history\n")
        }
        if interactive && Libedit.shared != nil {
            reader = TerminalLineReader(historyPath: Self.historyPath()) { [unowned self] text in
                self.completions(for: text)
            }
            Console.out("responder \(ResponderModule.version) REPL (Lua 5.4) - .help for commands, Ctrl-D to leave\n")
        } else {
            // byte by byte: when the session must be restarted, the next one reads on exactly
            // where this one stopped
            reader = PipedLineReader(unbuffered: true)
        }
        if let preload {
            loadFile(preload)
            // from now on code that cannot be stopped costs the session, not the --load file
            // (75: what `responder repl`'s supervisor restarts)
            LuaRuntime.setHardExitStatus(Self.restartStatus)
        }
        defer {
            reader.close()
            prepareClose()
        }
        while true {
            let prompt = pending.isEmpty ? "> " : ">> "
            switch reader.read(prompt: prompt) {
            case .eof:
                if interactive { Console.out("\n") }
                Console.flush()
                return 0
            case .interrupted:
                pending = []
            case .line(let line):
                if pending.isEmpty, let command = DotCommand(line) {
                    reader.remember(line)
                    if !perform(command) {
                        Console.flush()
                        return 0
                    }
                } else {
                    enter(line)
                }
            }
            Console.flush()
        }
    }

    /// The session ends: `lua_close` runs the last finalizers next, with hooks off, so only the
    /// wall-clock limit can stop a looping `__gc`. It gets a fresh `--timeout` window, and code
    /// that cannot be stopped then ends the process with status 3 (a limit), not the status that
    /// asks the supervisor for a new session (scripts/tests/safety/repl_close_spec.lua).
    private func prepareClose() {
        LuaRuntime.setHardExitStatus(3)
        runtime.resetLimits()
        runtime.startTimeout()
    }

    private static func historyPath() -> String? {
        if let p = getenv("RESPONDER_HISTORY") {
            let s = String(cString: p)
            return s.isEmpty ? nil : s
        }
        guard let home = getenv("HOME") else { return nil }
        return String(cString: home) + "/.responder_history"
    }

    // MARK: - Entries

    private enum Compiled {
        case ready  // the function is on the stack
        case incomplete
        case failed(LuaFailure)
    }

    private func compile(_ text: String) -> Compiled {
        var text = text
        if text.hasPrefix("=") { text = "return " + text.dropFirst() }
        // a new start: a memory limit an earlier entry hit must not refuse the memory that
        // compiling `t = nil` needs
        runtime.resetLimits()
        if runtime.load(Array(("return " + text + ";").utf8), chunkname: "=stdin") == nil { return .ready }
        if let failure = runtime.load(Array(text.utf8), chunkname: "=stdin") {
            return failure.message.hasSuffix("<eof>") ? .incomplete : .failed(failure)
        }
        return .ready
    }

    private func enter(_ line: String) {
        if pending.isEmpty && line.allSatisfy({ $0 == " " || $0 == "\t" }) { return }
        pending.append(line)
        let text = pending.joined(separator: "\n")
        switch compile(text) {
        case .incomplete:
            return
        case .failed(let failure):
            pending = []
            reader.remember(text)
            report(failure)
        case .ready:
            pending = []
            reader.remember(text)
            execute()
        }
    }

    /// Calls the function on top of the stack and prints its results.
    private func execute() {
        let base = lua_gettop(L) - 1
        runtime.resetLimits()
        runtime.startTimeout()
        ReplSignals.beginRunning(runtime.control)
        defer {
            ReplSignals.endRunning(interactive: reader.isInteractive)
            runtime.stopTimeout()
            lua_settop(L, base)
        }
        if let failure = runtime.call(0, LUA_MULTRET) {
            report(failure)
            return
        }
        let count = lua_gettop(L) - base
        guard count > 0 else { return }
        pushHelper("show")
        luashim_insert(L, base + 1)
        if let failure = runtime.call(count, 1) {
            report(failure)
            return
        }
        Console.out((runtime.string(at: -1) ?? "") + "\n")
    }

    private func report(_ failure: LuaFailure) {
        Console.flush()
        switch failure.kind {
        case .interrupted:
            // On a terminal the echoed ^C is still on the line.
            Console.error(reader.isInteractive ? "\ninterrupted!\n" : "interrupted!\n")
            // (the interrupt stays raised until cleared, so that no pcall swallows it: the
            // entry has ended, and the helper below must run)
            runtime.control.pointee.interrupt = 0
            markStopped("interrupted (Ctrl-C)", failure)
        case .memoryLimit:
            luashim_gc_collect(L)
            Console.error("error: \(failure.message)\n")
        default:
            var text = "error: \(failure.message)\n"
            if let tb = Self.usefulTraceback(failure.traceback) { text += tb + "\n" }
            Console.error(text)
            if failure.kind == .timeout || failure.kind == .instructionLimit {
                markStopped(
                    failure.kind == .timeout
                        ? "the time limit (--timeout)" : "the instruction limit (--max-instructions)", failure)
            }
        }
    }

    /// Tells the Lua helper that the entry stopped early, so that `.trace` marks where the last
    /// action stopped: `reason`, and the innermost Lua position of the failure's traceback.
    private func markStopped(_ reason: String, _ failure: LuaFailure) {
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        pushHelper("markStopped")
        runtime.pushString(reason)
        if let place = Self.innermostPosition(failure.traceback) { runtime.pushString(place) } else { lua_pushnil(L) }
        _ = runtime.call(2, 0)
    }

    /// `file:line` of the innermost Lua frame in a traceback (`[C]` frames skipped).
    static func innermostPosition(_ traceback: String?) -> String? {
        guard let traceback else { return nil }
        for line in traceback.split(separator: "\n") {
            let t = line.drop(while: { $0 == "\t" || $0 == " " })
            if t.hasPrefix("stack traceback:") || t.hasPrefix("[C]") { continue }
            if let colon = t.firstIndex(of: ":"), let end = t[t.index(after: colon)...].firstIndex(of: ":") {
                let place = t[..<end]
                if place.dropFirst(place.distance(from: place.startIndex, to: colon) + 1).allSatisfy(\.isNumber) {
                    return String(place)
                }
            }
        }
        return nil
    }

    /// The traceback without the REPL's own frames (the entry's line stays, as `lua5.4 -i` shows
    /// it); nil when nothing is left.
    static func usefulTraceback(_ traceback: String?) -> String? {
        guard let traceback else { return nil }
        var lines: [Substring] = []
        for line in traceback.split(separator: "\n", omittingEmptySubsequences: true) {
            let t = line.drop(while: { $0 == "\t" || $0 == " " })
            if t.hasPrefix("stack traceback:") || t.hasPrefix("[C]: in ?") { continue }
            if t.hasPrefix("[C]: in function 'error'") { continue }
            lines.append(line)
        }
        if lines.isEmpty { return nil }
        return "stack traceback:\n" + lines.joined(separator: "\n")
    }

    // MARK: - Lua helpers

    private func installHelpers() {
        if let failure = runtime.load(ReplLuaSupport.source, chunkname: ReplLuaSupport.chunkName) {
            Console.error("error: repl support: \(failure.message)\n")
            luashim_newtable(L)
        } else {
            luashim_pushglobaltable(L)
            luashim_push_swift_function(L, ReplLuaSupport.rawMetatable)
            luashim_push_swift_function(L, ReplLuaSupport.upvalueTables)
            if let failure = runtime.call(3, 1) {
                Console.error("error: repl support: \(failure.message)\n")
                luashim_newtable(L)
            }
        }
        lua_setfield(L, luashim_registryindex(), Self.helperKey)
    }

    private func pushHelper(_ name: String) {
        lua_getfield(L, luashim_registryindex(), Self.helperKey)
        if lua_type(L, -1) == LUA_TTABLE {
            lua_getfield(L, -1, name)
        } else {
            lua_pushnil(L)
        }
        luashim_remove(L, -2)
    }

    /// Calls a helper that returns `text` or `nil, message`, and prints accordingly.
    private func runReport(_ name: String, _ argument: String? = nil) {
        let base = lua_gettop(L)
        defer { lua_settop(L, base) }
        runtime.resetLimits()
        runtime.startTimeout()
        ReplSignals.beginRunning(runtime.control)
        defer {
            ReplSignals.endRunning(interactive: reader.isInteractive)
            runtime.stopTimeout()
        }
        pushHelper(name)
        var nargs: Int32 = 0
        if let argument {
            runtime.pushString(argument)
            nargs = 1
        }
        if let failure = runtime.call(nargs, 2) {
            report(failure)
            return
        }
        if let text = runtime.string(at: -2) {
            Console.out(text + "\n")
        } else {
            Console.error("error: \(runtime.string(at: -1) ?? "nothing to show")\n")
        }
    }

    /// Candidates for Tab completion (never raises; empty on any problem).
    func completions(for text: String) -> [String] {
        let base = lua_gettop(L)
        defer {
            runtime.stopTimeout()
            lua_settop(L, base)
        }
        runtime.resetLimits()
        runtime.startTimeout()
        pushHelper("complete")
        runtime.pushString(text)
        guard runtime.call(1, 1) == nil, lua_type(L, -1) == LUA_TTABLE else { return [] }
        var out: [String] = []
        let n = lua_rawlen(L, -1)
        if n == 0 { return [] }
        for i in 1...n {
            lua_rawgeti(L, -1, lua_Integer(i))
            if let s = runtime.string(at: -1) { out.append(s) }
            luashim_pop(L, 1)
        }
        return out
    }

    // MARK: - Dot commands

    private enum DotCommand {
        case help, tree(String), trace, warnings, reset, load(String), quit, unknown(String)

        init?(_ line: String) {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            guard trimmed.first == ".", let second = trimmed.dropFirst().first, second.isLetter else { return nil }
            let body = trimmed.dropFirst()
            let name = String(body.prefix(while: { !$0.isWhitespace }))
            var argument = String(body.dropFirst(name.count).drop(while: { $0.isWhitespace }))
            while let last = argument.last, last.isWhitespace { argument.removeLast() }
            switch name {
            case "help", "h", "?": self = .help
            case "tree": self = .tree(argument)
            case "trace": self = .trace
            case "warnings": self = .warnings
            case "reset": self = .reset
            case "load": self = .load(argument)
            case "quit", "exit", "q": self = .quit
            default: self = .unknown(name)
            }
        }
    }

    /// Performs a dot command; false means leave.
    private func perform(_ command: DotCommand) -> Bool {
        switch command {
        case .help:
            Console.out(Self.help + "\n")
        case .tree(let selector):
            runReport("tree", selector.isEmpty ? nil : selector)
        case .trace:
            runReport("trace")
        case .warnings:
            runReport("warnings")
        case .reset:
            runReport("reset")
        case .load(let path):
            if path.isEmpty {
                Console.error("error: .load needs a file: .load FILE.lua\n")
            } else {
                loadFile(path)
            }
        case .quit:
            return false
        case .unknown(let name):
            Console.error("error: unknown command .\(name) (try .help)\n")
        }
        return true
    }

    /// Runs a file in the session (its results, if any, are printed).
    /// The file is read as `responder run` reads it: a byte-order mark and a `#!` first line are
    /// skipped, so executable scenario scripts load too.
    private func loadFile(_ path: String) {
        // (checked without reading: a device or FIFO is refused, never read or waited for)
        if let problem = FileText.problem(path) {
            Console.error(FileText.openError(path, problem))
            return
        }
        let savedDirectory = runtime.scriptDirectory
        runtime.scriptDirectory = FileText.directory(of: path)
        defer { runtime.scriptDirectory = savedDirectory }
        if let failure = runtime.loadFile(path, chunkname: "@" + path) {
            report(failure)
            return
        }
        execute()
    }
}
