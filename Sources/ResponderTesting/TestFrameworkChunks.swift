import CLua
import CLuaShim
import ResponderLua

/// The Lua files of the test framework (`Lua/*.lua`, embedded in the binary): the runner
/// (`framework`), luassert's engine (`luassert_core`), `say`, and the parts loaded on first use
/// (`luassert_spies`, `luassert_match`, `responder_assertions`). Each is its own chunk named after
/// its file (`Sources/ResponderTesting/Lua/NAME.lua`), so an error in the framework itself points
/// at the real file and line; tracebacks and spec locations skip frames of that prefix.
///
/// Each chunk is compiled once per process and dumped; every spec file's state then loads that
/// bytecode (the host's own trusted chunks, never script input), which is several times cheaper
/// than parsing the source again. The bytecode keeps line information (errors and tracebacks
/// still point at the framework's file and line) but not the names of locals and upvalues.
enum TestFrameworkChunks {
    /// The chunk name of `name`: its file's path.
    static func chunkname(_ name: String) -> String { TestFrameworkLua.chunkPrefix + name + ".lua" }

    static func source(_ name: String) -> [UInt8]? {
        switch name {
        case "framework": return PackageResources.framework_lua
        case "luassert_core": return PackageResources.luassert_core_lua
        case "luassert_spies": return PackageResources.luassert_spies_lua
        case "luassert_match": return PackageResources.luassert_match_lua
        case "responder_assertions": return PackageResources.responder_assertions_lua
        case "say": return PackageResources.say_lua
        case "luassert_format": return PackageResources.luassert_format_lua
        case "luassert_more": return PackageResources.luassert_more_lua
        case "framework_extras": return PackageResources.framework_extras_lua
        case "io_streams": return PackageResources.io_streams_lua
        default: return nil
        }
    }

    /// Pushes chunk `name` as a function and returns nil, or returns the reason it failed with
    /// nothing pushed. The bytecode kept (``HostChunkCache``) has line information but no local
    /// and upvalue names (``LuaBytecode/withoutNames(_:)``): a spec file's state then loads about
    /// 1,050 fewer strings, 16 % of a small spec file's instructions.
    static func push(_ name: String, runtime: LuaRuntime) -> String? {
        let L = runtime.L
        guard let source = source(name) else { return "no framework chunk named '\(name)'" }
        let chunkname = chunkname(name)
        if let code = HostChunkCache.code(for: chunkname, sourceCount: source.count) {
            return loadBinary(code, name: name, L)
        }
        if let failure = runtime.load(source, chunkname: chunkname) { return failure.message }
        guard let dumped = HostChunkCache.dump(L) else { return nil }  // keep the source-compiled function
        // the chunk without names when that reads back; else as dumped
        if let lean = LuaBytecode.withoutNames(dumped), loadBinary(lean, name: name, L) == nil {
            luashim_remove(L, -2)
            HostChunkCache.keep(lean, for: chunkname, sourceCount: source.count)
        } else {
            HostChunkCache.keep(dumped, for: chunkname, sourceCount: source.count)
        }
        return nil
    }

    private static func loadBinary(_ code: [UInt8], name: String, _ L: OpaquePointer) -> String? {
        let status = code.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) {
                luaL_loadbufferx(L, $0.baseAddress, $0.count, chunkname(name), "b")
            }
        }
        if status == LUA_OK { return nil }
        let message = lua_tolstring(L, -1, nil).map { String(cString: $0) } ?? "?"
        luashim_pop(L, 1)
        return "cannot load the framework chunk '\(name)': \(message)"
    }
}
