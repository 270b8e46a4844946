import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The verdict of one test.
public enum TestStatus: String, Sendable, Equatable {
    case passed, failed, skipped, error

    /// Errors count as failures in summaries.
    public var isFailure: Bool { self == .failed || self == .error }
}

/// The result of one `it` (or one plain script, or one file-level error).
public struct TestRecord: Sendable, Equatable {
    /// What ends the message of the error a sandbox limit made of the rest of a spec file (the
    /// run's exit status is then 3, SPEC §3).
    public static let limitNote = " (the rest of the file was not run)"

    /// The spec file.
    public var file: String
    /// Full name: the `describe` path and the `it` name, space-joined (busted's naming).
    public var name: String
    /// The `describe` path, joined with " > " ("" at file level).
    public var suite: String
    /// The `it` name ("" for suite-level errors).
    public var test: String
    public var status: TestStatus
    public var message: String?
    /// `file:line` of the failing assertion, of the error, or of the `it`.
    public var location: String?
    /// `file:line` where the `it` (or `pending`, `describe`, file) itself is written: busted's
    /// handlers head a failure with it (`Failure → spec/a_spec.lua @ 3`).
    public var defined: String?
    /// A −/+ diff (lines starting "- ", "+ ", "  "), when the assertion has one.
    public var diff: String?
    /// `tostring(trace)` of the dispatch an assertion looked at.
    public var trace: String?
    /// Lua traceback of an unexpected error.
    public var traceback: String?
    /// Notes such as "snapshot 'x' written to …".
    public var note: String?
    /// The safety warnings the test raised (`warning: FILE:LINE: message` lines), those an
    /// `assert.warns` expected left out.
    public var warnings: [String] = []
    /// Seconds.
    public var duration: Double
    /// Whether a sandbox limit (instructions, memory, time) made this error: the run's exit
    /// status is then 3 (SPEC §3).
    public var limit = false
    /// Whether a hook's error made this record (`before_each`, `setup`, …): busted's terminal
    /// handlers print no progress mark for one.
    public var hook = false
    /// Which of `--repeat`'s runs made this record (1 when the tests run once).
    public var run = 1

    public init(
        file: String, name: String, suite: String = "", test: String = "", status: TestStatus,
        message: String? = nil, location: String? = nil, diff: String? = nil, trace: String? = nil,
        traceback: String? = nil, note: String? = nil, duration: Double = 0
    ) {
        self.file = file
        self.name = name
        self.suite = suite
        self.test = test
        self.status = status
        self.message = message
        self.location = location
        self.diff = diff
        self.trace = trace
        self.traceback = traceback
        self.note = note
        self.duration = duration
    }

    /// The longest text of a record a worker sends (its first characters and how many were left
    /// out): a test's 40 MiB message was kept whole by the parent for every file (768 MB for 60
    /// files at `--max-memory 32`) and took the parent seconds to read (found by an adversary
    /// probe).
    public static let textLimit = TextClip.fields
    /// What the parent keeps of each text once it holds ``keptTextBudget`` bytes of records.
    public static let lateTextLimit = 1024
    /// The bytes of record text the parent keeps whole over a run: beyond, texts are cut to
    /// ``lateTextLimit`` (part of the fixed overhead the memory cap leaves the host).
    public static let keptTextBudget = 32 << 20

    /// Cuts every text longer than `limit` bytes (``TextClip/clip(_:to:)``).
    public mutating func clipTexts(to limit: Int) {
        func clip(_ text: inout String) {
            if text.utf8.count > limit { text = TextClip.clip(text, to: limit) }
        }
        func clip(_ text: inout String?) {
            if let t = text, t.utf8.count > limit { text = TextClip.clip(t, to: limit) }
        }
        clip(&name)
        clip(&suite)
        clip(&test)
        clip(&message)
        clip(&location)
        clip(&defined)
        clip(&diff)
        clip(&trace)
        clip(&traceback)
        clip(&note)
        for i in warnings.indices { clip(&warnings[i]) }
    }

    /// Bytes of the record's texts plus a fixed estimate for the record itself (for memory
    /// accounting).
    public var textBytes: Int {
        var total = 256 + name.utf8.count + suite.utf8.count + test.utf8.count
        for text in [message, location, defined, diff, trace, traceback, note] { total += text?.utf8.count ?? 0 }
        for line in warnings { total += 16 + line.utf8.count }
        return total
    }
}
