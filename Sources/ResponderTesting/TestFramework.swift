import CLua
import CLuaShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ResponderKit
import ResponderLua

/// The verdict of one test.
public enum TestStatus: String, Sendable, Equatable {
    case passed, failed, skipped, error

    /// Errors count as failures in summaries.
    public var isFailure: Bool { self == .failed || self == .error }
}

/// The result of one `it` (or one plain script, or one file-level error).
public struct TestRecord: Sendable, Equatable {
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
    /// A −/+ diff (lines starting "- ", "+ ", "  "), when the assertion has one.
    public var diff: String?
    /// `tostring(trace)` of the dispatch an assertion looked at.
    public var trace: String?
    /// Lua traceback of an unexpected error.
    public var traceback: String?
    /// Notes such as "snapshot 'x' written to …".
    public var note: String?
    /// Seconds.
    public var duration: Double

    public init(file: String, name: String, suite: String = "", test: String = "", status: TestStatus,
                message: String? = nil, location: String? = nil, diff: String? = nil, trace: String? = nil,
                traceback: String? = nil, note: String? = nil, duration: Double = 0) {
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
}

/// How test files are run.
public struct TestRunOptions: Sendable {
    public var limits: LuaLimits
    public var safety: String
    /// A Lua pattern matched against full test names; when it is not a valid pattern it is
    /// matched as plain text.
    public var filter: String?
    public var updateSnapshots: Bool
    public var seed: Int64?
    /// Record coverage (lines and responders) for each file.
    public var coverage = false

    public init(limits: LuaLimits = .defaults, safety: String = "relaxed", filter: String? = nil,
                updateSnapshots: Bool = false, seed: Int64? = nil) {
        self.limits = limits
        self.safety = safety
        self.filter = filter
        self.updateSnapshots = updateSnapshots
        self.seed = seed
    }
}

/// State shared between `TestFramework.runFile` and the Swift functions the Lua half calls.
final class TestSession {
    let file: String
    let emit: (TestRecord) -> Void
    var currentName: String?
    var currentLocation: String?

    init(file: String, emit: @escaping (TestRecord) -> Void) {
        self.file = file
        self.emit = emit
    }

    static func of(_ L: OpaquePointer?) -> TestSession? {
        LuaRuntime.of(L).extensions[ObjectIdentifier(TestSession.self)] as? TestSession
    }
}

/// Runs one spec file (busted-compatible API, SPEC §3) or one plain script in a fresh state.
public enum TestFramework {
    /// `__snapshots__/<spec basename>.snap` beside the spec.
    public static func snapshotPath(for spec: String) -> String {
        let dir = FileText.directory(of: spec)
        let base = spec.split(separator: "/").last.map(String.init) ?? spec
        let stem = base.hasSuffix(".lua") ? String(base.dropLast(4)) : base
        return (dir == "." && !spec.hasPrefix("./") ? "" : dir + "/") + "__snapshots__/" + stem + ".snap"
    }

    /// Monotonic seconds.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Runs `path` and reports each test through `emit` as it finishes.
    /// A sandbox limit stops the file: the running test is reported as an error naming the limit.
    /// With `options.coverage`, `coverage` gets what the file exercised once it is done.
    public static func runFile(_ path: String, plain: Bool, options: TestRunOptions,
                               emit: @escaping (TestRecord) -> Void,
                               coverage: ((CoverageData) -> Void)? = nil) {
        let session = TestSession(file: path, emit: emit)
        let runtime: LuaRuntime
        do {
            var scenario = ScenarioOptions(limits: options.limits, seed: options.seed, safety: options.safety,
                                           trace: false)
            scenario.coverage = options.coverage ? .linesAndResponders : .off
            runtime = try Scenario.makeRuntime(scenario)
        } catch {
            emit(TestRecord(file: path, name: path, status: .error, message: error.message, location: path + ":0"))
            return
        }
        runtime.extensions[ObjectIdentifier(TestSession.self)] = session
        runtime.scriptDirectory = FileText.directory(of: path)
        // The wall-clock limit covers the file, closing its state included.
        runtime.startTimeout()
        if plain {
            runPlain(path, runtime: runtime, session: session, options: options)
        } else {
            runSpec(path, runtime: runtime, session: session, options: options)
        }
        runtime.extensions[ObjectIdentifier(TestSession.self)] = nil
        if let coverage, let recorder = runtime.coverage { coverage(recorder.snapshot()) }
    }

    private static func runPlain(_ path: String, runtime: LuaRuntime, session: TestSession, options: TestRunOptions) {
        if let filter = options.filter, !filter.isEmpty, !matches(path, filter, runtime: runtime) { return }
        runtime.resetLimits()
        let start = now()
        do {
            try runtime.runFile(path)
            session.emit(TestRecord(file: path, name: path, status: .passed, location: path + ":1", duration: now() - start))
        } catch {
            session.emit(TestRecord(file: path, name: path, status: .error, message: error.message,
                                    location: location(in: error.message) ?? path + ":1",
                                    traceback: error.traceback, duration: now() - start))
        }
    }

    private static func runSpec(_ path: String, runtime: LuaRuntime, session: TestSession, options: TestRunOptions) {
        let L = runtime.L
        let fileError = { (message: String, traceback: String?) in
            session.emit(TestRecord(file: path, name: "suite " + path, status: .error, message: message,
                                    location: location(in: message) ?? path + ":0", traceback: traceback))
        }
        let bytes: [UInt8]
        switch FileText.read(path) {
        case .success(let b): bytes = b
        case .failure(let problem):
            fileError("cannot open \(path): \(problem)", nil)
            return
        }
        // The framework chunk, called with the host table, returns the runner.
        if let failure = loadFramework(runtime) {
            fileError("internal error loading the test framework: \(failure.message)", nil)
            return
        }
        lua_createtable(L, 0, 12)
        func fn(_ name: String, _ f: LuaSwiftFunction) {
            luashim_push_swift_function(L, f)
            lua_setfield(L, -2, name)
        }
        fn("where", whereFunction)
        fn("clock", clockFunction)
        fn("limit", limitFunction)
        fn("traceback", tracebackFunction)
        fn("begin", beginFunction)
        fn("emit", emitFunction)
        fn("snapread", snapReadFunction)
        fn("snapwrite", snapWriteFunction)
        runtime.pushString(path)
        lua_setfield(L, -2, "file")
        runtime.pushString(snapshotPath(for: path))
        lua_setfield(L, -2, "snapshot_path")
        lua_pushboolean(L, options.updateSnapshots ? 1 : 0)
        lua_setfield(L, -2, "update_snapshots")
        if let filter = options.filter, !filter.isEmpty {
            runtime.pushString(filter)
            lua_setfield(L, -2, "filter")
        }
        if let failure = runtime.call(1, 1) {
            fileError("internal error starting the test framework: \(failure.message)", failure.traceback)
            return
        }
        lua_getfield(L, -1, "run")
        luashim_remove(L, -2)
        if let failure = runtime.load(bytes, chunkname: "@" + path) {
            luashim_pop(L, 1)
            fileError(failure.message, nil)
            return
        }
        runtime.resetLimits()
        if let failure = runtime.call(1, 0) {
            let name = session.currentName ?? path
            let loc = session.currentLocation ?? location(in: failure.message) ?? path + ":0"
            var message = failure.message
            if failure.isLimit { message += " (the rest of the file was not run)" }
            session.emit(TestRecord(file: path, name: name, suite: "", test: name, status: .error,
                                    message: message, location: loc, traceback: failure.isLimit ? nil : failure.traceback))
        }
        lua_settop(L, 0)
    }

    /// The framework chunk compiled once per process; later states load the dumped bytecode
    /// (the host's own trusted chunk, never script input), which is several times faster than
    /// parsing it again for every spec file.
    nonisolated(unsafe) private static var frameworkBytecode: [UInt8]?

    private final class DumpBuffer { var bytes: [UInt8] = [] }

    private static func loadFramework(_ runtime: LuaRuntime) -> LuaFailure? {
        let L = runtime.L
        if let code = frameworkBytecode {
            let status = code.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) {
                    luaL_loadbufferx(L, $0.baseAddress, $0.count, TestFrameworkLua.chunkname, "b")
                }
            }
            if status == LUA_OK { return nil }
            luashim_pop(L, 1)
        }
        if let failure = runtime.load(TestFrameworkLua.source, chunkname: TestFrameworkLua.chunkname) {
            return failure
        }
        // Lifetime proof: `lua_dump` calls the writer only during this call, while `box` is a live
        // local; Lua never keeps `ud`. Test: every spec file (the framework is dumped once per worker).
        let box = DumpBuffer()
        let writer: lua_Writer = { _, p, size, ud in
            guard let p, let ud else { return 1 }
            let b = Unmanaged<DumpBuffer>.fromOpaque(ud).takeUnretainedValue()
            b.bytes.append(contentsOf: UnsafeRawBufferPointer(start: p, count: size))
            return 0
        }
        if lua_dump(L, writer, Unmanaged.passUnretained(box).toOpaque(), 0) == 0, !box.bytes.isEmpty {
            frameworkBytecode = box.bytes
        }
        return nil
    }

    /// `file:line` at the start of a Lua error message, if any.
    public static func location(in message: String) -> String? {
        // "path/x.lua:12: text"
        var idx = message.startIndex
        while let colon = message[idx...].firstIndex(of: ":") {
            let after = message.index(after: colon)
            var end = after
            while end < message.endIndex, message[end].isASCII, message[end].isNumber { end = message.index(after: end) }
            if end > after, end < message.endIndex, message[end] == ":" {
                return String(message[..<end])
            }
            idx = after
            if message[..<colon].contains(" ") { break }
        }
        return nil
    }

    private static func matches(_ name: String, _ filter: String, runtime: LuaRuntime) -> Bool {
        guard runtime.load(TestFrameworkLua.filter, chunkname: "=(filter)") == nil else { return true }
        runtime.pushString(name)
        runtime.pushString(filter)
        if runtime.call(2, 1) != nil { return true }
        let r = lua_toboolean(runtime.L, -1) != 0
        luashim_pop(runtime.L, 1)
        return r
    }

    // MARK: - Host functions for the Lua half

    /// `file:line` of the innermost frame of a script file (skips the framework and C).
    static func callerLocation(_ L: OpaquePointer?) -> String? {
        var ar = lua_Debug()
        var level: Int32 = 1
        while lua_getstack(L, level, &ar) != 0 {
            if lua_getinfo(L, "Sl", &ar) != 0, ar.currentline > 0, let src = ar.source, src.pointee == 64 {
                return String(cString: src + 1) + ":\(ar.currentline)"
            }
            level += 1
        }
        return nil
    }

    static let whereFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.of(L)
        rt.pushString(callerLocation(L) ?? (TestSession.of(L)?.file ?? "?") + ":0")
        return 1
    }

    static let clockFunction: LuaSwiftFunction = { L in
        lua_pushnumber(L, TestFramework.now())
        return 1
    }

    static let limitFunction: LuaSwiftFunction = { L in
        let c = LuaRuntime.of(L).control.pointee
        lua_pushboolean(L, (c.budgetExceeded != 0 || c.memoryExceeded != 0 || c.timedOut != 0) ? 1 : 0)
        return 1
    }

    static let tracebackFunction: LuaSwiftFunction = { L in
        luaL_traceback(L, L, nil, 2)
        return 1
    }

    static let beginFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.of(L)
        guard let session = TestSession.of(L) else { return 0 }
        session.currentName = rt.string(at: 1)
        session.currentLocation = rt.string(at: 2)
        return 0
    }

    static let emitFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.of(L)
        guard let session = TestSession.of(L), lua_type(L, 1) == LUA_TTABLE else { return 0 }
        func str(_ key: String) -> String? {
            lua_getfield(L, 1, key)
            defer { luashim_pop(L, 1) }
            return lua_type(L, -1) == LUA_TSTRING ? rt.string(at: -1) : nil
        }
        lua_getfield(L, 1, "duration")
        let duration = luashim_tonumber(L, -1, nil)
        luashim_pop(L, 1)
        let record = TestRecord(
            file: session.file, name: str("name") ?? "?", suite: str("suite") ?? "", test: str("test") ?? "",
            status: TestStatus(rawValue: str("status") ?? "error") ?? .error,
            message: str("message"), location: str("location"), diff: str("diff"), trace: str("trace"),
            traceback: str("traceback"), note: str("note"), duration: duration)
        session.emit(record)
        return 0
    }

    static let snapReadFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.of(L)
        guard let path = rt.string(at: 1) else { return 0 }
        switch FileText.read(path) {
        case .success(let bytes):
            bytes.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { luashim_pushlstring(L, $0.baseAddress, $0.count) }
            }
            return 1
        case .failure:
            lua_pushnil(L)
            return 1
        }
    }

    static let snapWriteFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.of(L)
        guard let path = rt.string(at: 1), let text = rt.string(at: 2) else { return 0 }
        let dir = FileText.directory(of: path)
        if !FileText.isDirectory(dir), mkdir(dir, 0o755) != 0 {
            lua_pushnil(L)
            rt.pushString(String(cString: strerror(errno)))
            return 2
        }
        if FileText.write(text, to: path) {
            lua_pushboolean(L, 1)
            return 1
        }
        lua_pushnil(L)
        rt.pushString(String(cString: strerror(errno)))
        return 2
    }
}
