/// Why a script stopped: a Lua error, a sandbox limit or a strict violation.
public struct LuaFailure: Error, CustomStringConvertible, Sendable {
    /// What kind of failure it is; the CLI maps it to an exit status.
    public enum Kind: Sendable, Equatable {
        /// A Lua runtime or syntax error (exit status 1).
        case script
        /// The instruction budget ran out (exit status 3).
        case instructionLimit
        /// The memory cap was reached (exit status 3).
        case memoryLimit
        /// The wall-clock limit (`--timeout`) ran out (exit status 3).
        case timeout
        /// The user interrupted running code (Ctrl-C in the REPL).
        case interrupted
    }

    /// The kind of failure.
    public var kind: Kind
    /// The message, `file:line: text` when Lua located it.
    public var message: String
    /// The Lua traceback, when one was recorded.
    public var traceback: String?

    public init(kind: Kind, message: String, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
    }

    /// True for the sandbox limits (exit status 3).
    public var isLimit: Bool { kind == .instructionLimit || kind == .memoryLimit || kind == .timeout }

    public var description: String { message }
}
