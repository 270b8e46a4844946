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
        // A plain script runs with the test API too, as busted runs any file named to it: one
        // that registers no tests is one test that passes when it ends without error.
        runSpec(path, plain: plain, runtime: runtime, session: session, options: options)
        runtime.extensions[ObjectIdentifier(TestSession.self)] = nil
        if let coverage, let recorder = runtime.coverage { coverage(recorder.snapshot()) }
    }

    private static func runSpec(
        _ path: String, plain: Bool, runtime: LuaRuntime, session: TestSession, options: TestRunOptions
    ) {
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
        fn("assertion_where", assertionWhereFunction)
        fn("clock", clockFunction)
        fn("limit", limitFunction)
        fn("traceback", tracebackFunction)
        fn("begin", beginFunction)
        fn("silence_warning", silenceWarningFunction)
        fn("strict_count", strictCountFunction)
        list("warning_kinds", ViolationKind.allCases.map(\.rawValue))
        fn("emit", emitFunction)
        fn("set_run", setRunFunction)
        fn("snapread", snapReadFunction)
        fn("snapwrite", snapWriteFunction)
        fn("chunk", chunkFunction)
        fn("setenv", setenvFunction)
        fn("fenv", fenvFunction)
        fn("fninfo", fninfoFunction)
        fn("preload", preloadFunction)
        fn("loaded", loadedFunction)
        fn("userdata", userdataFunction)
        fn("write", writeFunction)
        fn("rawglobal", rawGlobalFunction)
        string("file", path)
        string("snapshot_path", snapshotPath(for: path))
        runtime.pushString(snapshotPath(for: path))
        lua_setfield(L, luashim_registryindex(), snapshotPathKey)
        flag("plain", plain)
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
}
