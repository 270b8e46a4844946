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

    /// Bytes of the record's texts plus a fixed estimate for the record itself (for memory
    /// accounting).
    public var textBytes: Int {
        var total = 256 + name.utf8.count + suite.utf8.count + test.utf8.count
        for text in [message, location, diff, trace, traceback, note] { total += text?.utf8.count ?? 0 }
        for line in warnings { total += 16 + line.utf8.count }
        return total
    }
}

/// How test files are run.
public struct TestRunOptions: Sendable {
    public var limits: LuaLimits
    public var safety: String
    /// Lua patterns matched against full test names (a test runs when one matches); a filter that
    /// is not a valid pattern is matched as plain text.
    public var filters: [String] = []
    /// The first of `filters` (setting it replaces them all).
    public var filter: String? {
        get { filters.first }
        set { filters = newValue.map { [$0] } ?? [] }
    }
    public var updateSnapshots: Bool
    public var seed: Int64?
    /// Record coverage (lines and responders) for each file.
    public var coverage = false
    /// busted's `--filter-out`: Lua patterns; a test or describe whose full name matches one is
    /// not run.
    public var filterOut: [String] = []
    /// busted's `--tags`: only tests whose full name has one of these `#tag`s run.
    public var tags: [String] = []
    /// busted's `--exclude-tags`: tests and describes whose name has one of these `#tag`s do not run.
    public var excludeTags: [String] = []
    /// busted's `--shuffle-tests`: randomize the order inside every block (seeded by `shuffleSeed`).
    public var shuffleTests = false
    /// busted's `--sort-tests`: sort every block's children by name.
    public var sortTests = false
    /// The seed for shuffled order and `randomize()` (busted's `--seed`).
    public var shuffleSeed: Int64 = 0
    /// busted's `--repeat`.
    public var repeatCount = 1
    /// busted's `--list`: print the tests (`file:line: name`) instead of running them.
    public var list = false
    /// busted's `--lazy`: `setup`/`teardown` are lazy.
    public var lazySetup = false
    /// busted's `--suppress-pending`.
    public var suppressPending = false
    /// busted's `--keep-going` (default) / `--no-keep-going`: stop running tests after the first
    /// failure or error.
    public var keepGoing = true
    /// busted's `--lpath`: module path templates (`dir/?.lua`) where `require` also looks for `.lua`
    /// source files.
    public var modulePaths: [String] = []
    /// busted's `--helper`: a Lua file run in each spec file's state before the spec.
    public var helper: String?
    /// busted's `-e`: Lua statements run in each spec file's state before the spec.
    public var statements: [String] = []

    public init(
        limits: LuaLimits = .defaults, safety: String = "relaxed", filter: String? = nil,
        updateSnapshots: Bool = false, seed: Int64? = nil
    ) {
        self.limits = limits
        self.safety = safety
        self.filters = filter.map { [$0] } ?? []
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
    /// 1-based positions in the world's warnings that an `assert.warns` of the running test expected.
    var silenced = Set<Int>()

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
        // on the bytes (every spec file computes it): the folder part with its slash, the stem
        let bytes = Array(spec.utf8)
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        var stem = bytes[(slash.map { $0 + 1 } ?? 0)...]
        if stem.count >= 4 && stem.suffix(4).elementsEqual(".lua".utf8) { stem = stem.dropLast(4) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 20)
        if let slash {
            out.append(contentsOf: bytes[...slash])  // the folder and its slash ("/" for the root)
        }
        out.append(contentsOf: "__snapshots__/".utf8)
        out.append(contentsOf: stem)
        out.append(contentsOf: ".snap".utf8)
        return String(decoding: out, as: UTF8.self)
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
    public static func runFile(
        _ path: String, plain: Bool, options: TestRunOptions,
        emit: @escaping (TestRecord) -> Void,
        coverage: ((CoverageData) -> Void)? = nil
    ) {
        let session = TestSession(file: path, emit: emit)
        let runtime: LuaRuntime
        do {
            var scenario = ScenarioOptions(
                limits: options.limits, seed: options.seed, safety: options.safety,
                trace: false)
            scenario.coverage = options.coverage ? .linesAndResponders : .off
            runtime = try Scenario.makeRuntime(scenario)
        } catch {
            emit(TestRecord(file: path, name: path, status: .error, message: error.message, location: path + ":0"))
            return
        }
        runtime.extensions[ObjectIdentifier(TestSession.self)] = session
        runtime.scriptDirectory = FileText.directory(of: path)
        // (a fresh runtime has none: an empty list is not set again, which costs a join per file)
        if !options.modulePaths.isEmpty { runtime.modulePaths = options.modulePaths }
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
        let filters = options.filters.filter { !$0.isEmpty }
        if !filters.isEmpty, !filters.contains(where: { matches(path, $0, runtime: runtime) }) { return }
        runtime.resetLimits()
        let start = now()
        do {
            try runtime.runFile(path)
            session.emit(
                TestRecord(file: path, name: path, status: .passed, location: path + ":1", duration: now() - start))
        } catch {
            var record = TestRecord(
                file: path, name: path, status: .error, message: error.message,
                location: location(in: error.message) ?? path + ":1",
                traceback: error.traceback, duration: now() - start)
            record.limit = error.isLimit
            session.emit(record)
        }
    }

    private static func runSpec(_ path: String, runtime: LuaRuntime, session: TestSession, options: TestRunOptions) {
        let L = runtime.L
        let fileError = { (message: String, traceback: String?, limit: Bool) in
            var record = TestRecord(
                file: path, name: "suite " + path, status: .error, message: message,
                location: location(in: message) ?? path + ":0", traceback: traceback)
            record.limit = limit
            session.emit(record)
        }
        // The framework chunk, called with the host table, returns the runner.
        if let failure = TestFrameworkChunks.push("framework", runtime: runtime) {
            fileError("internal error loading the test framework: \(failure)", nil, false)
            return
        }
        lua_createtable(L, 0, 32)
        func fn(_ name: String, _ f: LuaSwiftFunction) {
            luashim_push_swift_function(L, f)
            lua_setfield(L, -2, name)
        }
        func string(_ name: String, _ value: String?) {
            guard let value else { return }
            runtime.pushString(value)
            lua_setfield(L, -2, name)
        }
        func flag(_ name: String, _ value: Bool) {
            lua_pushboolean(L, value ? 1 : 0)
            lua_setfield(L, -2, name)
        }
        func list(_ name: String, _ values: [String]) {
            lua_createtable(L, Int32(values.count), 0)
            for (i, v) in values.enumerated() {
                runtime.pushString(v)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
            lua_setfield(L, -2, name)
        }
        fn("where", whereFunction)
        fn("clock", clockFunction)
        fn("limit", limitFunction)
        fn("traceback", tracebackFunction)
        fn("begin", beginFunction)
        fn("silence_warning", silenceWarningFunction)
        list("warning_kinds", ViolationKind.allCases.map(\.rawValue))
        fn("emit", emitFunction)
        fn("snapread", snapReadFunction)
        fn("snapwrite", snapWriteFunction)
        fn("chunk", chunkFunction)
        fn("setenv", setenvFunction)
        fn("fninfo", fninfoFunction)
        fn("preload", preloadFunction)
        fn("loaded", loadedFunction)
        fn("userdata", userdataFunction)
        fn("write", writeFunction)
        fn("rawglobal", rawGlobalFunction)
        string("file", path)
        string("snapshot_path", snapshotPath(for: path))
        flag("update_snapshots", options.updateSnapshots)
        list("filters", options.filters.filter { !$0.isEmpty })
        list("filter_out", options.filterOut)
        list("tags", options.tags)
        list("exclude_tags", options.excludeTags)
        flag("shuffle", options.shuffleTests)
        flag("sort", options.sortTests)
        lua_pushinteger(L, lua_Integer(options.shuffleSeed))
        lua_setfield(L, -2, "seed")
        lua_pushinteger(L, lua_Integer(max(1, options.repeatCount)))
        lua_setfield(L, -2, "repeat_count")
        flag("list", options.list)
        flag("lazy", options.lazySetup)
        flag("suppress_pending", options.suppressPending)
        flag("keep_going", options.keepGoing)
        if !options.modulePaths.isEmpty { string("lpath", options.modulePaths.joined(separator: ";")) }
        if let failure = runtime.call(1, 1) {
            fileError(
                "internal error starting the test framework: \(failure.message)", failure.traceback, failure.isLimit)
            return
        }
        if let failure = runPreludes(path, runtime: runtime, options: options) {
            lua_settop(L, 0)
            fileError(failure.message, failure.traceback, failure.isLimit)
            return
        }
        lua_getfield(L, -1, "run")
        luashim_remove(L, -2)
        // as busted's loadfile: a byte-order mark and a `#!` first line are skipped
        if let failure = runtime.loadFile(path, chunkname: "@" + path) {
            luashim_pop(L, 1)
            fileError(failure.message, nil, failure.isLimit)
            return
        }
        runtime.resetLimits()
        if let failure = runtime.call(1, 0) {
            let name = session.currentName ?? path
            let loc = session.currentLocation ?? location(in: failure.message) ?? path + ":0"
            var message = failure.message
            if failure.isLimit { message += TestRecord.limitNote }
            var record = TestRecord(
                file: path, name: name, suite: "", test: name, status: .error,
                message: message, location: loc, traceback: failure.isLimit ? nil : failure.traceback)
            record.limit = failure.isLimit
            session.emit(record)
        }
        lua_settop(L, 0)
    }

    /// busted's `--helper FILE` and `-e STATEMENT`: run in the spec file's state before the spec.
    private static func runPreludes(_ path: String, runtime: LuaRuntime, options: TestRunOptions) -> LuaFailure? {
        if let helper = options.helper {
            // "cannot open FILE: …" when it is missing, as busted's loadfile
            if let failure = runtime.loadFile(helper, chunkname: "@" + helper) { return failure }
            if let failure = runtime.call(0, 0) { return failure }
        }
        for statement in options.statements {
            if let failure = runtime.load(Array(statement.utf8), chunkname: "=(command line)") { return failure }
            if let failure = runtime.call(0, 0) { return failure }
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
            while end < message.endIndex, message[end].isASCII, message[end].isNumber {
                end = message.index(after: end)
            }
            if end > after, end < message.endIndex, message[end] == ":" {
                return String(message[..<end])
            }
            idx = after
            if message[..<colon].contains(" ") { break }
        }
        return nil
    }

    private static func matches(_ name: String, _ filter: String, runtime: LuaRuntime) -> Bool {
        guard
            runtime.loadHostChunk(TestFrameworkLua.filter, chunkname: TestFrameworkLua.chunkPrefix + "filter.lua")
                == nil
        else { return true }
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
        session.silenced = []
        // While a test runs its warnings belong to it: kept in the world's list and reported
        // with the test's record (see `emitFunction`), not printed between the progress marks.
        if let world = rt.moduleState?.world {
            world.diagnostics = session.currentName == nil ? { line in Console.error(line + "\n") } : { _ in }
        }
        return 0
    }

    /// `host.silence_warning(i)`: the world's warning `i` was expected by `assert.warns`; it is
    /// not reported with the test.
    static let silenceWarningFunction: LuaSwiftFunction = { L in
        guard let session = TestSession.of(L) else { return 0 }
        let i = luashim_tointeger(L, 1, nil)
        if i > 0 && i <= Int64(Int32.max) { session.silenced.insert(Int(i)) }
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
        var record = TestRecord(
            file: session.file, name: str("name") ?? "?", suite: str("suite") ?? "", test: str("test") ?? "",
            status: TestStatus(rawValue: str("status") ?? "error") ?? .error,
            message: str("message"), location: str("location"), diff: str("diff"), trace: str("trace"),
            traceback: str("traceback"), note: str("note"), duration: duration)
        // a test's record carries the warnings it raised (the world is reset as each test starts)
        if session.currentName != nil, !record.test.isEmpty, let world = rt.moduleState?.world {
            for (offset, violation) in world.warnings.enumerated() where !session.silenced.contains(offset + 1) {
                record.warnings.append(violation.warningLine)
            }
        }
        // The runner keeps every record for its report: what a file emits counts against the
        // file's memory cap (never given back while the file runs).
        luashim_charge_memory(UnsafeMutableRawPointer(rt.control), record.textBytes)
        session.emit(record)
        return 0
    }

    /// `host.chunk(name)`: the framework chunk `name` as a function (see ``TestFrameworkChunks``).
    static let chunkFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.of(L)
        guard let name = rt.string(at: 1) else { return rt.raise("host.chunk expects a chunk name") }
        if let failure = TestFrameworkChunks.push(name, runtime: rt) { return rt.raise(failure) }
        return 1
    }

    /// `host.setenv(f, env)`: gives the spec file's main chunk its environment (busted's block
    /// environments). Only a Lua function whose first upvalue is `_ENV` is changed.
    static let setenvFunction: LuaSwiftFunction = { L in
        guard lua_type(L, 1) == LUA_TFUNCTION, lua_iscfunction(L, 1) == 0, lua_type(L, 2) == LUA_TTABLE,
            let name = lua_getupvalue(L, 1, 1)
        else { return 0 }
        luashim_pop(L, 1)
        guard String(cString: name) == "_ENV" else { return 0 }
        lua_pushvalue(L, 2)
        _ = lua_setupvalue(L, 1, 1)
        return 0
    }

    /// `host.fninfo(f)`: the line a Lua function is defined at and its source (luassert's function
    /// formatter), or `-1, "=[C]"` for C functions.
    static let fninfoFunction: LuaSwiftFunction = { L in
        guard lua_type(L, 1) == LUA_TFUNCTION else { return 0 }
        var ar = lua_Debug()
        lua_pushvalue(L, 1)
        guard lua_getinfo(L, ">S", &ar) != 0 else { return 0 }
        lua_pushinteger(L, lua_Integer(ar.linedefined))
        LuaRuntime.of(L).pushString(ar.source.map { String(cString: $0) } ?? "?")
        return 2
    }

    /// `host.preload(names, loader)`: `require(name)` calls `loader(name)` for each of the names
    /// (built-in modules such as `luassert` and `say`; see ``LuaRuntime/preloadRegistryKey``).
    static let preloadFunction: LuaSwiftFunction = { L in
        guard lua_type(L, 1) == LUA_TTABLE, lua_type(L, 2) == LUA_TFUNCTION else { return 0 }
        LuaRuntime.pushPreloadTable(L)
        let count = lua_rawlen(L, 1)
        if count > 0 {
            for i in 1...count {
                if lua_rawgeti(L, 1, lua_Integer(i)) == LUA_TSTRING {
                    lua_pushvalue(L, 2)
                    lua_rawset(L, -3)
                } else {
                    luashim_pop(L, 1)
                }
            }
        }
        return 0
    }

    /// `host.loaded()`: the table of modules `require` has loaded (what busted's `insulate` saves
    /// and restores as `package.loaded`).
    static let loadedFunction: LuaSwiftFunction = { L in
        LuaRuntime.pushLoadedTable(L)
        return 1
    }

    /// `host.userdata(mt)`: an empty full userdata with metatable `mt` (the file objects of the
    /// spec's `io` streams, which must be userdata as in Lua).
    static let userdataFunction: LuaSwiftFunction = { L in
        guard lua_type(L, 1) == LUA_TTABLE else { return 0 }
        _ = luashim_newuserdata(L, 0, 0)
        lua_pushvalue(L, 1)
        _ = lua_setmetatable(L, -2)
        return 1
    }

    /// `host.write(fd, text)`: writes the bytes to standard output (1) or standard error (2).
    static let writeFunction: LuaSwiftFunction = { L in
        guard lua_type(L, 2) == LUA_TSTRING else { return 0 }
        var length = 0
        guard let bytes = lua_tolstring(L, 2, &length) else { return 0 }
        if luashim_tointeger(L, 1, nil) == 2 {
            luashim_write_stderr(bytes, length)
        } else {
            luashim_write_stdout(bytes, length)
        }
        return 0
    }

    /// `host.rawglobal(name)`: the global `name` as `rawget(_G, name)` gives it, without the
    /// reveal that the sandbox's `rawget` does first (which would create every lazily created name
    /// of the responder module; see `luashim_set_lazy_reveal`). The framework uses it at start-up
    /// so a spec file that never looks at the global table reflectively never pays for that.
    static let rawGlobalFunction: LuaSwiftFunction = { L in
        luashim_pushglobaltable(L)
        lua_pushvalue(L, 1)
        _ = lua_rawget(L, -2)
        return 1
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
