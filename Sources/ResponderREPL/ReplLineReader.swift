import CLuaShim
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// What reading one line gave.
enum ReplInput {
    case line(String)
    /// Ctrl-C at the prompt: the current input is discarded.
    case interrupted
    case eof
}

/// Reads the REPL's input lines.
protocol ReplLineReader: AnyObject {
    /// True when prompts are shown (a terminal).
    var isInteractive: Bool { get }
    func read(prompt: String) -> ReplInput
    /// Records a complete entry in the history.
    func remember(_ entry: String)
    /// Called once at exit.
    func close()
}

// MARK: - Signals

/// State shared with the SIGINT handler. Plain word-sized stores, written from the handler.
nonisolated(unsafe) private var sigintControl: UnsafeMutablePointer<luashim_control>?
nonisolated(unsafe) private var sigintRunning: Int32 = 0
nonisolated(unsafe) private var sigintCount: Int32 = 0
nonisolated(unsafe) private var sigintAtPrompt: Int32 = 0

/// SIGINT: while Lua runs, ask the count hook to raise "interrupted!" (kept raised until the
/// entry ends, so a pcall cannot swallow it); a third Ctrl-C in the same run, when code the hook
/// cannot reach ignores the first two, ends the session process with the status that asks the
/// supervisor for a new session (it ended the whole REPL by SIGINT: found by an adversary
/// probe); at the prompt, note it so the reader discards the line.
private func replSigint(_ signo: Int32) {
    if sigintRunning != 0, let control = sigintControl {
        sigintCount += 1
        control.pointee.interrupt = 1
        if sigintCount >= 3 { luashim_exit_hard() }
    } else {
        sigintAtPrompt = 1
    }
}

enum ReplSignals {
    /// Installs the handler. `restart`: restart interrupted system calls (while code runs);
    /// without it a blocking `read` at the prompt returns EINTR so Ctrl-C can discard the line.
    static func install(restart: Bool) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = replSigint
        sigemptyset(&action.sa_mask)
        action.sa_flags = restart ? SA_RESTART : 0
        sigaction(SIGINT, &action, nil)
    }

    /// Unblocks SIGINT (a parent may have spawned us with it blocked).
    static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Marks the start of running Lua code on the state with this control block.
    static func beginRunning(_ control: UnsafeMutablePointer<luashim_control>) {
        sigintControl = control
        sigintCount = 0
        sigintRunning = 1
        install(restart: true)
    }

    /// Marks the end of running code; `interactive` re-arms Ctrl-C for the prompt.
    static func endRunning(interactive: Bool) {
        sigintRunning = 0
        if interactive {
            sigintAtPrompt = 0
            install(restart: false)
        }
    }

    /// Takes (and clears) a Ctrl-C that arrived at the prompt.
    static func takePromptInterrupt() -> Bool {
        if sigintAtPrompt != 0 {
            sigintAtPrompt = 0
            return true
        }
        return false
    }
}

// MARK: - Piped input

/// Plain line reading from file descriptor 0 (no prompts, no history).
final class PipedLineReader: ReplLineReader {
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEOF = false
    /// Read one byte at a time, so that nothing past the current line is taken from the input.
    private let unbuffered: Bool

    init(unbuffered: Bool = false) {
        self.unbuffered = unbuffered
    }

    var isInteractive: Bool { false }

    func read(prompt: String) -> ReplInput {
        // where the search for the line's end goes on (bytes before it hold no newline): a long
        // line read a chunk at a time is searched once, not once per chunk
        var scanned = start
        while true {
            if let nl = buffer[scanned...].firstIndex(of: 10) {
                var end = nl
                if end > start, buffer[end - 1] == 13 { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = nl + 1
                if start > 65536 {
                    buffer.removeFirst(start)
                    start = 0
                }
                return .line(line)
            }
            if atEOF {
                if start < buffer.count {
                    let line = String(decoding: buffer[start...], as: UTF8.self)
                    start = buffer.count
                    return .line(line)
                }
                return .eof
            }
            scanned = buffer.count
            let n: Int
            if unbuffered {
                var byte: UInt8 = 0
                n = Glibc.read(0, &byte, 1)
                if n > 0 { buffer.append(byte) }
            } else {
                var chunk = [UInt8](repeating: 0, count: 4096)
                n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, 4096) }
                if n > 0 { buffer.append(contentsOf: chunk[0..<n]) }
            }
            if n > 0 || (n < 0 && errno == EINTR) { continue }
            atEOF = true
        }
    }

    func remember(_ entry: String) {}
    func close() {}
}

// MARK: - Terminal input (libedit)

/// A libedit global variable, reached through the dynamic symbol table: Swift 6 refuses direct
/// references to imported mutable C globals, and the readline-compatible API has no setters.
private func editGlobal<T>(_ name: String, _ type: T.Type) -> UnsafeMutablePointer<T>? {
    Libedit.shared?.global(name, type)
}

typealias CompletionFunction =
    @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
typealias GetcFunction = @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32

/// Completion state for the C callbacks (one REPL per process).
nonisolated(unsafe) private var completionSource: ((String) -> [String])?
nonisolated(unsafe) private var completionCandidates: [String] = []
nonisolated(unsafe) private var completionIndex = 0
nonisolated(unsafe) private var completionOver: UnsafeMutablePointer<Int32>?
nonisolated(unsafe) private var lineDiscarded = false

private func replComplete(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32) -> UnsafeMutablePointer<
    UnsafeMutablePointer<CChar>?
>? {
    completionOver?.pointee = 1
    guard let text, let source = completionSource else { return nil }
    completionCandidates = source(String(cString: text))
    completionIndex = 0
    if completionCandidates.isEmpty { return nil }
    return Libedit.shared?.completionMatches(text, replCompletionEntry)
}

private func replCompletionEntry(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    if state == 0 { completionIndex = 0 }
    guard completionIndex < completionCandidates.count else { return nil }
    defer { completionIndex += 1 }
    return Libedit.shared?.strdup(completionCandidates[completionIndex])
}

/// Reads one character for libedit: UTF-8 decoded; Ctrl-C at the prompt ends the line (which
/// the reader then discards); -1 at end of input.
private func replGetc(_ stream: UnsafeMutablePointer<FILE>?) -> Int32 {
    func byte() -> Int32 {
        var b: UInt8 = 0
        while true {
            // A Ctrl-C that lands outside read() (while libedit redraws or completes) would be
            // lost by a blocking read: wait in short polls and look at the flag between them.
            if ReplSignals.takePromptInterrupt() {
                lineDiscarded = true
                return -2
            }
            var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            if ready < 0 { return -1 }
            let n = Glibc.read(0, &b, 1)
            if n == 1 { return Int32(b) }
            if n < 0 && errno == EINTR { continue }
            return -1
        }
    }
    let first = byte()
    if first == -2 { return 10 }
    if first < 0x80 { return first }
    let extra: Int
    var value: Int32
    switch first {
    case 0xC0..<0xE0:
        extra = 1
        value = first & 0x1F
    case 0xE0..<0xF0:
        extra = 2
        value = first & 0x0F
    case 0xF0..<0xF8:
        extra = 3
        value = first & 0x07
    default: return 0xFFFD
    }
    for _ in 0..<extra {
        let next = byte()
        if next == -2 { return 10 }
        if next < 0 { return -1 }
        value = (value << 6) | (next & 0x3F)
    }
    return value
}

/// Line editing, history and completion through libedit's readline-compatible API.
final class TerminalLineReader: ReplLineReader {
    private let historyPath: String?

    var isInteractive: Bool { true }

    init(historyPath: String?, complete: @escaping (String) -> [String]) {
        self.historyPath = historyPath
        if setlocale(LC_CTYPE, "") == nil || !Self.localeIsUTF8() {
            _ = setlocale(LC_CTYPE, "C.UTF-8")
        }
        // libedit's own C library (another one under a static executable, see `Libedit`)
        if let edit = Libedit.shared, let ours = setlocale(LC_CTYPE, nil) { _ = edit.setlocale(LC_CTYPE, ours) }
        completionSource = complete
        completionOver = editGlobal("rl_attempted_completion_over", Int32.self)
        editGlobal("rl_readline_name", UnsafePointer<CChar>?.self)?.pointee = UnsafePointer(
            Libedit.shared?.strdup("responder"))
        editGlobal("rl_catch_signals", Int32.self)?.pointee = 0
        editGlobal("rl_getc_function", GetcFunction?.self)?.pointee = replGetc
        editGlobal("rl_attempted_completion_function", CompletionFunction?.self)?.pointee = replComplete
        editGlobal("rl_completion_append_character", Int32.self)?.pointee = 0
        let breaks = " \t\n\"\\'`@$><=;|&{(),+-*/%^#~[]"
        editGlobal("rl_basic_word_break_characters", UnsafePointer<CChar>?.self)?.pointee = UnsafePointer(
            Libedit.shared?.strdup(breaks))
        editGlobal("rl_completer_word_break_characters", UnsafeMutablePointer<CChar>?.self)?.pointee = Libedit.shared?
            .strdup(breaks)
        _ = Libedit.shared?.initialize()
        Libedit.shared?.stifleHistory(1000)
        if let historyPath { _ = Libedit.shared?.readHistory(historyPath) }
        ReplSignals.install(restart: false)
    }

    private static func localeIsUTF8() -> Bool {
        guard let name = setlocale(LC_CTYPE, nil) else { return false }
        let s = String(cString: name).lowercased()
        return s.contains("utf-8") || s.contains("utf8")
    }

    func read(prompt: String) -> ReplInput {
        Console.flush()
        lineDiscarded = false
        _ = ReplSignals.takePromptInterrupt()
        guard let raw = Libedit.shared?.readline(prompt) else {
            return lineDiscarded ? .interrupted : .eof
        }
        let line = String(cString: raw)
        Libedit.shared?.free(raw)
        if lineDiscarded { return .interrupted }
        return .line(line)
    }

    func remember(_ entry: String) {
        guard !entry.isEmpty else { return }
        _ = Libedit.shared?.addHistory(entry)
        if let historyPath { _ = Libedit.shared?.writeHistory(historyPath) }
    }

    func close() {
        if let historyPath { _ = Libedit.shared?.writeHistory(historyPath) }
    }
}
