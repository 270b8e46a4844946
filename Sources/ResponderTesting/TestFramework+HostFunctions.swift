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

/// The Swift functions the framework's Lua half calls (locations, claims, snapshots, timing).
extension TestFramework {

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

    /// The place luassert's `error(message, level)` names for an assertion that failed: the
    /// script line that called into the framework, or nil when a C function did (an assertion
    /// passed straight to `pcall`: Lua adds no position for a C function's level, so luassert's
    /// message has none there).
    static func assertionCallerLocation(_ L: OpaquePointer?) -> String? {
        let prefix = Array(TestFrameworkLua.chunkPrefix.utf8).map { CChar(bitPattern: $0) }
        // the framework's own frames: its chunks (named `=Sources/ResponderTesting/Lua/…`) and
        // the C functions they call (the `pcall` around an assertion's body)
        func frame(_ level: Int32) -> (framework: Bool, c: Bool, place: String?)? {
            var ar = lua_Debug()
            guard lua_getstack(L, level, &ar) != 0, lua_getinfo(L, "Sl", &ar) != 0, let src = ar.source else {
                return nil
            }
            if strncmp(src, prefix, prefix.count) == 0 { return (true, false, nil) }
            let isC = ar.what.map { String(cString: $0) == "C" } ?? false
            let place = src.pointee == 64 && ar.currentline > 0 ? String(cString: src + 1) + ":\(ar.currentline)" : nil
            return (false, isC, place)
        }
        var level: Int32 = 1
        while let f = frame(level) {
            level += 1
            if f.framework { continue }
            if f.c, frame(level)?.framework == true { continue }
            return f.place
        }
        return nil
    }

    static let assertionWhereFunction: LuaSwiftFunction = { L in
        if let place = assertionCallerLocation(L) { LuaRuntime.entered(L).pushString(place) } else { lua_pushnil(L) }
        return 1
    }

    static let whereFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.entered(L)
        rt.pushString(callerLocation(L) ?? (TestSession.of(L)?.file ?? "?") + ":0")
        return 1
    }

    static let clockFunction: LuaSwiftFunction = { L in
        lua_pushnumber(L, TestFramework.now())
        return 1
    }

    static let limitFunction: LuaSwiftFunction = { L in
        let c = LuaRuntime.entered(L).control.pointee
        lua_pushboolean(L, (c.budgetExceeded != 0 || c.memoryExceeded != 0 || c.timedOut != 0) ? 1 : 0)
        return 1
    }

    static let tracebackFunction: LuaSwiftFunction = { L in
        luaL_traceback(L, L, nil, 2)
        return 1
    }

    /// `host.set_run(n)`: run `n` of `--repeat` starts; the records from here on belong to it.
    static let setRunFunction: LuaSwiftFunction = { L in
        var isInteger: Int32 = 0
        let run = luashim_tointeger(L, 1, &isInteger)
        if isInteger != 0, run >= 1, let session = TestSession.of(L) { session.run = Int(truncatingIfNeeded: run) }
        return 0
    }

    static let beginFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.entered(L)
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

    /// `host.strict_count([kind])`: how many strict violations (of `kind`, or of any kind) the
    /// world raised so far; `assert.warns` compares counts around its call.
    static let strictCountFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.entered(L)
        let counts = rt.moduleState?.world.strictViolationCounts ?? [:]
        if let name = rt.string(at: 1) {
            lua_pushinteger(L, lua_Integer(ViolationKind(rawValue: name).flatMap { counts[$0] } ?? 0))
        } else {
            lua_pushinteger(L, lua_Integer(counts.values.reduce(0, +)))
        }
        return 1
    }

    static let emitFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.entered(L)
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
        record.defined = str("defined")
        lua_getfield(L, 1, "hook")
        record.hook = lua_toboolean(L, -1) != 0
        luashim_pop(L, 1)
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
        let rt = LuaRuntime.entered(L)
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

    /// `host.fenv(f [, env])`: the environment (`_ENV` upvalue) of Lua function `f`, or nil when it
    /// has none; with `env`, gives `f` alone that environment (busted's `bindfenv`): `f`'s `_ENV`
    /// is joined to the upvalue of a fresh empty chunk set to `env`, so the closures that shared
    /// `f`'s `_ENV` keep theirs. No Lua code runs.
    static let fenvFunction: LuaSwiftFunction = { L in
        guard lua_type(L, 1) == LUA_TFUNCTION, lua_iscfunction(L, 1) == 0 else { return 0 }
        let setting = lua_type(L, 2) == LUA_TTABLE
        lua_settop(L, 2)
        var index: Int32 = 1
        var found = false
        while let name = lua_getupvalue(L, 1, index) {
            if String(cString: name) == "_ENV" {
                found = true
                break
            }
            luashim_pop(L, 1)
            index += 1
        }
        guard found else { return 0 }
        if !setting { return 1 }  // the value of `_ENV`, on top
        luashim_pop(L, 1)
        let empty = "return"
        guard luaL_loadbufferx(L, empty, empty.utf8.count, "=bindfenv", "t") == LUA_OK else { return 0 }
        lua_pushvalue(L, 2)
        _ = lua_setupvalue(L, -2, 1)
        lua_upvaluejoin(L, 1, index, -1, 1)
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
        LuaRuntime.entered(L).pushString(ar.source.map { String(cString: $0) } ?? "?")
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
        let rt = LuaRuntime.entered(L)
        guard let path = rt.string(at: 1) else { return 0 }
        let allowed = snapshotPath(rt)
        // the spec file's own snapshots only, never through a symbolic link (the text read shows
        // in failure messages)
        for (bad, why) in [
            (path != allowed, "snapshots are read from \(allowed ?? "?") only"),
            (FileText.isSymbolicLink(FileText.directory(of: path)), "its folder is a symbolic link (refused)"),
            (FileText.isSymbolicLink(path), "it is a symbolic link (refused)"),
        ] where bad {
            lua_pushnil(L)
            rt.pushString(why)
            return 2
        }
        switch FileText.read(path, maxBytes: rt.fileReadAllowance) {
        case .success(let bytes):
            bytes.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { luashim_pushlstring(L, $0.baseAddress, $0.count) }
            }
            return 1
        case .failure(.tooLarge(let size, _)):
            lua_pushnil(L)
            rt.pushString("it is too large (\(size) bytes) for the memory limit (--max-memory)")
            return 2
        case .failure:
            lua_pushnil(L)
            return 1
        }
    }

    /// The registry key of the spec file's snapshot path: the only file `snapwrite` writes.
    static let snapshotPathKey = "responder.snapshotPath"

    /// The spec file's snapshot path, as the host set it (not what the script may pass).
    private static func snapshotPath(_ rt: LuaRuntime) -> String? {
        lua_getfield(rt.L, luashim_registryindex(), snapshotPathKey)
        defer { luashim_pop(rt.L, 1) }
        return rt.string(at: -1)
    }

    /// The first line of every snapshot file: an existing file without it is never replaced.
    static let snapshotHeader = "# responder snapshots"

    static let snapWriteFunction: LuaSwiftFunction = { L in
        let rt = LuaRuntime.entered(L)
        guard let path = rt.string(at: 1), let text = rt.bytes(at: 2) else { return 0 }
        let allowed = snapshotPath(rt)
        func refuse(_ why: String) -> Int32 {
            lua_pushnil(L)
            rt.pushString(why)
            return 2
        }
        // (whatever code reaches this function writes the spec file's own snapshots only)
        guard path == allowed else { return refuse("snapshots are written to \(allowed ?? "?") only") }
        let dir = FileText.directory(of: path)
        var st = stat()
        if lstat(dir, &st) != 0, mkdir(dir, 0o755) != 0 {
            return refuse(String(cString: strerror(errno)))
        }
        if let failure = FileText.writeGuarded(text, to: path, header: snapshotHeader, guardedFolder: dir) {
            return refuse(failure)
        }
        lua_pushboolean(L, 1)
        return 1
    }
}
