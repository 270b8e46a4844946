import CLua
import CLuaShim

#if canImport(Glibc)
    import Glibc
#endif

/// A Swift function callable from Lua through the C trampoline: returns the number of
/// results, or `LUASHIM_RAISE` with the error value on top of the stack. It must never call a
/// Lua API function that can raise (no `luaL_check*`, no `lua_call`, no `lua_error`).
public typealias LuaSwiftFunction = @convention(c) (OpaquePointer?) -> Int32

/// Owns one sandboxed `lua_State` and is the single path for every Swift→Lua call.
///
/// The state is created with a capped allocator and the limit hook (see `LuaLimits` and
/// `luashim_limits.h`: instruction budget, wall-clock limit, interrupts).
/// Errors never unwind Swift frames: Swift functions report errors by status and the C trampoline
/// raises; calls into Lua go through `call(_:_:)`, a `lua_pcall` with a traceback handler.
public final class LuaRuntime {
    /// The raw state. Only this module touches it.
    /// (While an async task runs, `AsyncResume` points it at the task coroutine's thread.)
    @exclusivity(unchecked) public package(set) var L: OpaquePointer
    /// Limits the state was created with.
    public let limits: LuaLimits
    /// Folder that `require` resolves against (and never leaves).
    public var scriptDirectory: String = "." {
        didSet { luashim_set_script_directory(L, scriptDirectory) }
    }
    /// More places `require` looks for `.lua` source files after the script's folder: templates
    /// such as `lib/?.lua` (`?` is the module name with dots turned into `/`), as in `package.path`.
    /// A file found through a template must really lie (links resolved) inside the folder of one
    /// of the templates (the part before its first `?`); templates that do not end in `.lua` are
    /// ignored (no C modules).
    public var modulePaths: [String] = [] {
        didSet { luashim_set_module_paths(L, modulePaths.joined(separator: ";")) }
    }
    /// Objects the embedding attaches to this runtime (the responder module's world, …).
    public var extensions: [ObjectIdentifier: AnyObject] = [:]
    /// The `responder` module's per-state data, once installed.
    package var moduleState: ModuleState?
    /// Coverage being recorded for this state, if any (see `CoverageRecorder.install`).
    public internal(set) var coverage: CoverageRecorder? {
        didSet {
            // files `require` loads (in C) are registered through this function
            if coverage != nil { luashim_push_swift_function(L, LuaRuntime.chunkLoaded) } else { lua_pushnil(L) }
            lua_setfield(L, luashim_registryindex(), "responder.chunkLoaded")
        }
    }

    /// Creates a sandboxed state (SPEC §4) with the given limits and random seed.
    public init(limits: LuaLimits = .defaults, seed: Int64? = nil) throws(LuaFailure) {
        guard let state = luashim_newstate(limits.memoryBytes, limits.budget) else {
            throw LuaFailure(kind: .memoryLimit, message: "cannot create a Lua state (not enough memory)")
        }
        self.L = state
        self.limits = limits
        luashim_limits_reset(state, limits.budget, limits.exactInstructions ? 1 : 0)
        // Lifetime proof: the runtime owns the state and closes it in `deinit`, so every Lua call
        // that reads this pointer (`LuaRuntime.of`) runs while the runtime lives. Test: every spec.
        luashim_set_host(L, Unmanaged.passUnretained(self).toOpaque())
        luashim_gc_generational(L)  // switching runs a full collection: cheapest on the empty heap
        luashim_open_sandbox(L)
        luashim_open_compat(L)
        if let seed {
            lua_getglobal(L, "math")
            lua_getfield(L, -1, "randomseed")
            lua_pushinteger(L, seed)
            _ = luashim_pcall(L, 1, 0)
            luashim_pop(L, 1)
        }
        lua_settop(L, 0)
    }

    deinit {
        // Values released here clear their cell's `live` pointer while the state is open, and
        // `__gc` metamethods that run in `lua_close` may still use the module: the handle turns
        // nil only once the state is closed (scripts/tests/safety/finalizers_spec.lua).
        moduleState?.world.reset()
        moduleState?.closing = true
        luashim_close(L)
        moduleState?.world.meter.disconnect()  // the control block went away with the state
        moduleState?.world.work.disconnect()
        moduleState?.handle.L = nil
        moduleState?.releaseClosingRetains()
    }

    /// The runtime that owns `L` (from the state's extra space).
    @inline(__always)
    /// (Lifetime: see `luashim_set_host` in `init`.)
    public static func of(_ L: OpaquePointer?) -> LuaRuntime {
        Unmanaged<LuaRuntime>.fromOpaque(luashim_get_host(L)!).takeUnretainedValue()
    }

    /// The control block (limits, accounting).
    public var control: UnsafeMutablePointer<luashim_control> { luashim_control_of(L) }

    /// Bytes the Lua heap uses now.
    public var memoryInUse: Int { Int(control.pointee.used) }

    /// The bytes a file read for the script may have: half of what the memory cap leaves (the
    /// bytes read and the Lua string made of them live at once), or `Int.max` without a cap. A
    /// file is read whole outside Lua's allocator, so its size is checked first: an 8 GiB sparse
    /// snapshot file aborted the worker, and a 1 GiB one took 2 GB at a 32 MiB cap (found by an
    /// adversary probe).
    public var fileReadAllowance: Int {
        let c = control.pointee
        guard c.limit > 0 else { return Int.max }
        let used = c.used + c.hostUsed
        return used >= c.limit ? 0 : Int(c.limit - used) / 2
    }

    /// Restores the instruction budget and clears limit flags (e.g. before each REPL entry).
    public func resetLimits() { luashim_limits_reset(L, limits.budget, limits.exactInstructions ? 1 : 0) }

    /// Starts the wall-clock limit (`limits.timeoutSeconds`, if any) from now. It covers
    /// everything until `stopTimeout()`, host work and closing the state included: code the
    /// limit hook cannot reach (C functions, finalizers, engine work) ends the process with
    /// exit status 3 and a message a second after the deadline.
    public func startTimeout() { luashim_set_timeout(L, limits.timeoutMilliseconds) }

    /// Process-wide: the exit status the timer uses when it must end code it cannot interrupt
    /// (default 3; the REPL's session process asks its supervisor for a new session instead).
    public static func setHardExitStatus(_ status: Int32) { luashim_set_hard_exit_status(status) }

    /// The child process the host waits for now (0: none), killed first when a time limit ends
    /// the process (graphviz must not run on, orphaned).
    public static func setHardExitChild(_ pid: Int32) { luashim_set_hard_exit_child(pid) }

    /// Ends the wall-clock limit (e.g. a REPL entry is done).
    public func stopTimeout() { luashim_set_timeout(L, 0) }

    /// Charges host work (nodes visited, bytes formatted) to the instruction budget; true when a
    /// limit now stops the script (return at once: the trampoline raises it). Never raises.
    @inline(__always)
    public func charge(_ units: Int) -> Bool { luashim_charge(L, Int64(units)) != 0 }

    /// Sets a global to a Swift function.
    public func setGlobal(_ name: String, _ fn: LuaSwiftFunction) {
        luashim_push_swift_function(L, fn)
        lua_setglobal(L, name)
    }

    // MARK: - The one protected-call path

    /// Calls the function below `nargs` arguments on the stack, protected, with the traceback
    /// handler. On success the results are on the stack; on failure nothing is left and the
    /// failure is returned.
    public func call(_ nargs: Int32, _ nresults: Int32) -> LuaFailure? {
        let thread = L
        let status = luashim_pcall(L, nargs, nresults)
        if L != thread { restoreThread(thread) }
        if status == LUA_OK {
            // a limit swallowed by a script's own pcall still ends the script
            let c = control.pointee
            if c.abortPending == 2 {
                // a strict violation a finalizer met, with no instruction left for the hook to
                // raise it at: this call ends with it
                luashim_pop(L, nresults == LUA_MULTRET ? 0 : nresults)
                lua_getfield(L, luashim_registryindex(), "responder.abortMessage")
                luashim_set_abort(L, 0)
                return popFailure(status: LUA_ERRRUN)
            }
            if c.limit > 0 && c.memoryExceeded != 0 && luashim_memory_limit_stands(L) != 0
                || c.budgetExceeded != 0 || c.timedOut != 0
            {
                let message =
                    c.timedOut != 0
                    ? "time limit exceeded"
                    : c.budgetExceeded != 0 ? "instruction limit exceeded" : "not enough memory"
                luashim_pop(L, nresults == LUA_MULTRET ? 0 : nresults)
                control.pointee.limitRaised = 1
                pushString(message)
                return popFailure(status: c.budgetExceeded != 0 ? LUA_ERRRUN : LUA_ERRMEM)
            }
            return nil
        }
        return popFailure(status: status)
    }

    /// Like `call`, but on failure leaves the error value on the stack and returns the status
    /// (for callers that keep error objects, such as responder invocations).
    @inline(__always)
    public func callKeepingError(_ nargs: Int32, _ nresults: Int32) -> Int32 {
        let thread = L
        let status = luashim_pcall(L, nargs, nresults)
        if L != thread { restoreThread(thread) }
        return status
    }

    // MARK: - Loading and running

    /// Loads one of the host's own chunks (never script input) and leaves the function on the
    /// stack: compiled from `source` the first time in this process, then undumped from the
    /// bytecode dumped then (with its line information), which is several times cheaper: a test
    /// worker makes a state per spec file, and revealing the lazy names (busted's framework does,
    /// through `rawget(_G, …)`) loads the kit prelude in each. With coverage on, always compiled
    /// (the recorder registers text chunks).
    public func loadHostChunk(_ source: [UInt8], chunkname: String) -> LuaFailure? {
        if coverage == nil, let code = HostChunkCache.code(for: chunkname, sourceCount: source.count) {
            let status = code.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { luaL_loadbufferx(L, $0.baseAddress, $0.count, chunkname, "b") }
            }
            return status == LUA_OK ? nil : popFailure(status: status)
        }
        if let failure = load(source, chunkname: chunkname) { return failure }
        if coverage == nil, let code = HostChunkCache.dump(L) {
            HostChunkCache.keep(code, for: chunkname, sourceCount: source.count)
        }
        return nil
    }

    /// Loads a text chunk (binary chunks are refused) and leaves the function on the stack.
    public func load(_ bytes: [UInt8], chunkname: String) -> LuaFailure? {
        let status = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { cbuf in
                chunkname.withCString { luashim_load_text(L, cbuf.baseAddress, cbuf.count, $0) }
            }
        }
        if status == LUA_OK {
            coverage?.registerChunk(self, chunkname: chunkname, bytes: bytes)
            return nil
        }
        return popFailure(status: status)
    }

    /// Loads a script file as `lua` does (a byte-order mark and a `#!` first line are skipped),
    /// streaming it into the parser; only regular files are read, text chunks only. Leaves the
    /// function on the stack.
    public func loadFile(_ path: String, chunkname: String) -> LuaFailure? {
        let status = luashim_load_file(L, path, chunkname)
        if status == LUA_OK {
            if let coverage, case .success(let bytes) = FileText.read(path, maxBytes: fileReadAllowance) {
                coverage.registerChunk(self, chunkname: chunkname, bytes: bytes)
            }
            return nil
        }
        return popFailure(status: status)
    }

    /// `chunkLoaded(fn, chunkname, path)`: called by `require` after it loaded a file, while
    /// coverage is recorded (registers the chunk's lines).
    static let chunkLoaded: LuaSwiftFunction = { L in
        let rt = LuaRuntime.entered(L)
        guard let coverage = rt.coverage, let chunkname = rt.string(at: 2), let path = rt.string(at: 3),
            case .success(let bytes) = FileText.read(path, maxBytes: rt.fileReadAllowance)
        else { return 0 }
        lua_settop(L, 1)
        coverage.registerChunk(rt, chunkname: chunkname, bytes: bytes)
        return 0
    }

    /// Runs a script file: chunk name is the path as given, `arg` is set as `lua` does.
    public func runFile(_ path: String, arguments: [String] = []) throws(LuaFailure) {
        scriptDirectory = FileText.directory(of: path)
        lua_createtable(L, Int32(arguments.count), 1)
        pushString(path)
        lua_rawseti(L, -2, 0)
        for (i, a) in arguments.enumerated() {
            pushString(a)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        lua_setglobal(L, "arg")
        if let failure = loadFile(path, chunkname: "@" + path) { throw failure }
        for a in arguments { pushString(a) }
        if let failure = call(Int32(arguments.count), 0) { throw failure }
    }

    /// Runs a string chunk with the given name and returns how many results it left on the stack.
    public func runString(_ code: String, chunkname: String, results: Int32 = 0) throws(LuaFailure) {
        if let failure = load(Array(code.utf8), chunkname: chunkname) { throw failure }
        if let failure = call(0, results) { throw failure }
    }

    // MARK: - Values

    /// Pushes a Swift string.
    @inline(__always)
    public func pushString(_ s: String) {
        var s = s
        s.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { luashim_pushlstring(L, $0.baseAddress, $0.count) }
        }
    }

    /// The string at `index` (strings and numbers), or nil.
    public func string(at index: Int32) -> String? {
        let t = lua_type(L, index)
        guard t == LUA_TSTRING || t == LUA_TNUMBER else { return nil }
        var len = 0
        guard let p = luashim_tolstring(L, index, &len) else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: len) {
            String(decoding: UnsafeBufferPointer(start: $0, count: len), as: UTF8.self)
        }
    }

    /// The bytes of the string at `index` (strings only), as they are: no UTF-8 decoding.
    public func bytes(at index: Int32) -> [UInt8]? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var len = 0
        guard let p = luashim_tolstring(L, index, &len) else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: len) { Array(UnsafeBufferPointer(start: $0, count: len)) }
    }

    /// `tostring(value)` in protected mode (never raises).
    public func describe(_ index: Int32) -> String {
        luashim_tostring(L, index)
        let s = string(at: -1) ?? "?"
        luashim_pop(L, 1)
        return s
    }

    /// Pushes an error message string and returns `LUASHIM_RAISE`, for Swift functions.
    @inline(__always)
    public func raise(_ message: String) -> Int32 {
        pushString(message)
        return LUASHIM_RAISE
    }

    /// `file:line: ` of the innermost Lua function at `level` (1 = the function that called us).
    public func whereString(_ level: Int32 = 1) -> String {
        luashim_where(L, level)
        let s = string(at: -1) ?? ""
        luashim_pop(L, 1)
        return s
    }

    /// Whether the function at `level` (1: the caller of the running C function) is one of the
    /// host's own chunks (explore's driver calling `tap`): its line is no place to show a user.
    public func levelIsHostChunk(_ level: Int32 = 1) -> Bool {
        var ar = lua_Debug()
        guard lua_getstack(L, level, &ar) != 0, lua_getinfo(L, "S", &ar) != 0 else { return false }
        return LuaRuntime.isHostChunk(ar.source)
    }

    /// The first script location (file, line) on the current call stack.
    public func scriptLocation() -> (file: String, line: Int)? {
        var ar = lua_Debug()
        var level: Int32 = 0
        while lua_getstack(L, level, &ar) != 0 {
            // (the host's own chunks, `=Sources/…`, such as explore's driver, are not script code)
            if lua_getinfo(L, "Sl", &ar) != 0, ar.currentline > 0, !LuaRuntime.isHostChunk(ar.source) {
                let src = withUnsafePointer(to: &ar.short_src) {
                    $0.withMemoryRebound(to: CChar.self, capacity: Int(LUA_IDSIZE)) { short in
                        // every dispatch asks: reuse the last chunk's name when it is the same
                        if let cached = lastSource, cached.pointer == ar.source,
                            cached.bytes.withUnsafeBufferPointer({ strcmp($0.baseAddress!, short) == 0 })
                        {
                            return cached.name
                        }
                        let name = String(cString: short)
                        lastSource = (ar.source, Array(name.utf8CString), name)
                        return name
                    }
                }
                return (src, Int(ar.currentline))
            }
            level += 1
        }
        return nil
    }

    /// How the host's own chunks are named: `=` and this (their source paths in the repository),
    /// which is also how their frames begin in a traceback (after a tab).
    static let hostChunkPrefix = "Sources/"

    /// Whether a chunk's source name is one of the host's own chunks (`=Sources/…`).
    static func isHostChunk(_ source: UnsafePointer<CChar>?) -> Bool {
        guard let source, source[0] == UInt8(ascii: "=") else { return false }
        return strncmp(source + 1, hostChunkPrefix, hostChunkPrefix.utf8.count) == 0
    }

    /// The chunk name `scriptLocation` returned last, keyed by the source string's address and
    /// checked against its text.
    private var lastSource: (pointer: UnsafePointer<CChar>?, bytes: [CChar], name: String)?

    // MARK: - require

    /// Pushes the table of loaded modules (Lua's `package.loaded`, kept in the registry; `require`
    /// looks there first, so the standard libraries and `responder` are found by name).
    public static func pushLoadedTable(_ L: OpaquePointer?) {
        lua_getfield(L, luashim_registryindex(), "_LOADED")
    }

    /// Pushes the loaders `require` consults after the loaded modules and before files (Lua's
    /// `package.preload`, kept in the registry): `name -> function(name, ":preload:")`, for
    /// modules an embedding builds in (the test framework's `luassert`, `say`, `busted`, …).
    public static func pushPreloadTable(_ L: OpaquePointer?) {
        luashim_push_preload_table(L)
    }
}
