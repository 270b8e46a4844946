import CLua
import CLuaShim
import ResponderEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The `explore` global (SPEC §3.5): made on first use from `ExploreLua`'s chunk, with the Swift
/// helpers it needs. Its registrations live in the registry (`responder.explore`) where the
/// explorer reads them.
package enum ExploreAPI {
    package static let registryKey = "responder.explore"
    package static let tableKey = "responder.exploreAPI"

    /// Pushes the `explore` table, loading it on first use. Returns false (a message pushed)
    /// when it cannot be made.
    static func push(_ m: ModuleState) -> Bool {
        let L = m.L
        if lua_getfield(L, luashim_registryindex(), tableKey) == LUA_TTABLE { return true }
        luashim_pop(L, 1)
        if !loadChunk(m) { return false }
        let helpers: [(String, LuaSwiftFunction)] = [
            ("root", root), ("luaErrors", luaErrors), ("scenario", scenario),
            ("generation", generation), ("liveTasks", liveTasks),
        ]
        lua_createtable(L, 0, Int32(helpers.count))
        for (name, fn) in helpers {
            luashim_push_swift_function(L, fn)
            lua_setfield(L, -2, name)
        }
        if let failure = m.runtime.call(1, 2) {
            m.runtime.pushString("internal error: the explore table failed: \(failure.message)")
            return false
        }
        lua_setfield(L, luashim_registryindex(), registryKey)
        lua_pushvalue(L, -1)
        lua_setfield(L, luashim_registryindex(), tableKey)
        return true
    }

    /// The chunk compiled once per process; later states load its dump (the host's own trusted
    /// chunk, never script input), which `explore`'s fresh state per run makes worth it.
    nonisolated(unsafe) private static var bytecode: [UInt8]?
    private static let bytecodeLock = CacheLock()

    /// Pushes the explore chunk's function; false (a message pushed) when it cannot be made.
    private static func loadChunk(_ m: ModuleState) -> Bool {
        let L = m.L
        if let code = bytecodeLock.withLock({ bytecode }) {
            let status = code.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) {
                    luaL_loadbufferx(L, $0.baseAddress, $0.count, ExploreLua.chunkname, "b")
                }
            }
            if status == LUA_OK { return true }
            luashim_pop(L, 1)
        }
        if let failure = m.runtime.load(ExploreLua.source, chunkname: ExploreLua.chunkname) {
            m.runtime.pushString("internal error: the explore table does not compile: \(failure.message)")
            return false
        }
        var size = 0
        if let dump = luashim_dump_function(L, -1, &size) {
            let bytes = Array(UnsafeBufferPointer(start: dump, count: size))
            free(dump)
            bytecodeLock.withLock { bytecode = bytes }
        }
        return true
    }

    /// `host.root()`: the mounted root, or nil.
    static let root: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        m.push(m.world.root)
        return 1
    }

    /// `host.generation()`: changes when the world is reset (registrations are per world).
    static let generation: LuaSwiftFunction = { L in
        lua_pushinteger(L, lua_Integer(ModuleState.enter(L).world.generation))
        return 1
    }

    /// `host.liveTasks()`: the kit's list function, or nil before the kit is loaded.
    static let liveTasks: LuaSwiftFunction = { L in
        lua_getfield(L, luashim_registryindex(), "responder.liveTasks")
        return 1
    }

    /// `host.luaErrors()` → how many LuaError values were made, the last one's message.
    static let luaErrors: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        lua_pushinteger(L, lua_Integer(m.luaErrorCount))
        m.runtime.pushString(m.lastLuaErrorMessage)
        return 2
    }

    /// `host.scenario(path, seed)`: runs a scenario script in this state as `run` would (path
    /// relative to the calling script's folder, `math.random` seeded), returns the mounted root.
    ///
    /// Only a Lua script is run: a path ending in `.lua` that, links resolved, is a `.lua` file.
    /// Any file of the machine ran with the script's globals, its text read back through them or
    /// through the parse error (`/etc/os-release`, `/etc/shadow`: found by an adversary probe),
    /// where the sandbox gives scripts no file access (SPEC §4). (A folder rule, as `require`'s,
    /// would refuse the specs `explore --output DIR` writes beside other projects.)
    static let scenario: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let rt = m.runtime
        guard let given = rt.string(at: 1) else { return m.argError(1, "explore.scenario", "path (string)", 1) }
        let saved = rt.scriptDirectory
        let path = given.hasPrefix("/") || saved == "." ? given : saved + "/" + given
        guard given.hasSuffix(".lua"), !given.utf8.contains(0) else {
            return m.failAtScriptLine(
                "explore.scenario: '\(given)' is not a Lua script (a path ending in .lua expected)")
        }
        if let real = FileText.realPath(path), !real.hasSuffix(".lua") {
            return m.failAtScriptLine(
                "explore.scenario: '\(given)' leads to a file that is not a Lua script (a link to '\(TextClip.clip(real, to: TextClip.column))')"
            )
        }
        let bytes: [UInt8]
        switch FileText.read(path, maxBytes: rt.fileReadAllowance) {
        case .success(let b): bytes = b
        case .failure(let problem):
            return m.failAtScriptLine("explore.scenario: cannot open '\(path)': \(problem)")
        }
        // the safety level the exploration ran with (`--safety`): the default of this scenario's
        // run, put back afterwards (and given to its tree when the scenario set none), so that it
        // does not leak into the spec's other tests
        var safety: SafetyLevel?
        if let level = rt.string(at: 3) {
            guard let s = SafetyLevel(rawValue: level) else {
                return m.failAtScriptLine(
                    "bad option 'safety' to 'explore.scenario' (relaxed, strict or disabled expected)")
            }
            safety = s
        }
        let savedDefault = m.world.defaultSafetyLevel
        if let safety { m.world.defaultSafetyLevel = safety }
        defer { m.world.defaultSafetyLevel = savedDefault }
        if lua_type(L, 2) == LUA_TNUMBER {
            lua_getglobal(L, "math")
            lua_getfield(L, -1, "randomseed")
            lua_pushvalue(L, 2)
            if rt.callKeepingError(1, 0) != LUA_OK { return LUASHIM_RAISE }
            luashim_pop(L, 1)
        }
        if let failure = rt.load(bytes, chunkname: "@" + path) {
            rt.pushString(failure.message)
            return LUASHIM_RAISE
        }
        rt.scriptDirectory = FileText.directory(of: path)
        let status = rt.callKeepingError(0, 0)
        rt.scriptDirectory = saved
        if status != LUA_OK { return LUASHIM_RAISE }
        guard let root = m.world.root else {
            return m.failAtScriptLine("explore.scenario: '\(path)' mounted no tree (call mount(root) in the scenario)")
        }
        if let safety, root.safetyLevel == nil { root.safetyLevel = safety }
        m.push(root)
        return 1
    }
}
