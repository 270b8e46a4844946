import CLua
import CLuaShim
import ResponderLua

/// A `.busted` configuration file, read as busted 2.1.1 reads it: a Lua file returning a table of
/// tasks (`default`, named tasks chosen with `-r TASK`, and `_all` for every task), each a table of
/// option values keyed by busted's long option names (`ROOT`, `pattern`, `tags`, `exclude-tags`,
/// `lpath`, `helper`, `output`, …). Options given on the command line win over the task, the
/// task over `_all`. The file runs in the sandbox (no `io`, no `os.execute`).
public struct BustedConfig: Sendable {
    /// One option value: text (numbers are kept as their text), a flag, or a list.
    public enum Value: Sendable, Equatable {
        case text(String)
        case flag(Bool)
        case list([String])

        /// The value as a list: a list as is, text split at commas (busted's `tags = "a,b"`).
        public var strings: [String] {
            switch self {
            case .text(let s): return s.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
            case .flag(let b): return [b ? "true" : "false"]
            case .list(let l): return l
            }
        }

        /// The value as one text (the last item of a list).
        public var text: String? {
            switch self {
            case .text(let s): return s
            case .flag(let b): return b ? "true" : "false"
            case .list(let l): return l.last
            }
        }

        /// The value as a flag (`true`/`false`, or text "true"/"false").
        public var flag: Bool? {
            switch self {
            case .flag(let b): return b
            case .text(let s): return s == "true" ? true : (s == "false" ? false : nil)
            case .list: return nil
            }
        }
    }

    /// The merged options of the chosen task (`_all` underneath).
    public var options: [String: Value]

    /// Why a `.busted` file could not be used.
    public struct Problem: Error, Sendable {
        public let message: String
        /// Whether a sandbox limit stopped the file (exit status 3, as for a script).
        public var isLimit = false
    }

    /// Reads `path` and picks `task` (nil: `default`, when the file has one). The file runs under
    /// a budget of its own (10 M instructions, 64 MiB) and the run's wall-clock limit,
    /// `timeoutSeconds`.
    public static func load(_ path: String, task: String?, timeoutSeconds: Double) throws(Problem) -> BustedConfig {
        let bytes: [UInt8]
        // (read whole outside any cap: no larger than the state it runs in may hold; an 8 GiB
        // sparse `.busted` aborted the runner, found by an adversary probe)
        switch FileText.read(path, maxBytes: 16 << 20) {
        case .success(let b): bytes = b
        case .failure(let problem): throw Problem(message: "cannot open \(path): \(problem)")
        }
        let runtime: LuaRuntime
        do {
            runtime = try LuaRuntime(
                limits: LuaLimits(maxInstructions: 10_000_000, maxMemoryMiB: 64, timeoutSeconds: timeoutSeconds))
        } catch {
            throw Problem(message: "cannot read \(path): \(error.message)")
        }
        runtime.scriptDirectory = FileText.directory(of: path)
        if let failure = runtime.load(bytes, chunkname: "@" + path) {
            throw Problem(message: "failed loading config file `\(path)`: \(failure.message)")
        }
        runtime.startTimeout()
        defer { runtime.stopTimeout() }
        if let failure = runtime.call(0, 1) {
            throw Problem(
                message: "failed loading config file `\(path)`: \(failure.message)", isLimit: failure.isLimit)
        }
        let L = runtime.L
        defer { lua_settop(L, 0) }
        guard lua_type(L, -1) == LUA_TTABLE else { throw Problem(message: ".busted file does not return a table.") }
        let file = lua_gettop(L)
        var options: [String: Value] = [:]
        if let task, !task.isEmpty {
            guard lua_getfield(L, file, task) == LUA_TTABLE else {
                throw Problem(message: "Task `\(task)` not found, or not a table.")
            }
            options = readOptions(runtime, at: lua_gettop(L))
            luashim_pop(L, 1)
        } else {
            if lua_getfield(L, file, "default") == LUA_TTABLE { options = readOptions(runtime, at: lua_gettop(L)) }
            luashim_pop(L, 1)
        }
        if lua_getfield(L, file, "_all") == LUA_TTABLE {
            for (k, v) in readOptions(runtime, at: lua_gettop(L)) where options[k] == nil { options[k] = v }
        }
        luashim_pop(L, 1)
        return BustedConfig(options: options)
    }

    /// The option table at `index`: string keys with text, number, boolean or list values (raw
    /// access only: the file's metatables are not consulted).
    private static func readOptions(_ rt: LuaRuntime, at index: Int32) -> [String: Value] {
        let L = rt.L
        var out: [String: Value] = [:]
        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            defer { luashim_pop(L, 1) }
            guard lua_type(L, -2) == LUA_TSTRING, let key = rt.string(at: -2) else { continue }
            switch lua_type(L, -1) {
            case LUA_TSTRING:
                if let s = rt.string(at: -1) { out[key] = .text(s) }
            case LUA_TNUMBER:
                if lua_isinteger(L, -1) != 0 {
                    out[key] = .text(String(lua_tointegerx(L, -1, nil)))
                } else {
                    out[key] = .text(String(lua_tonumberx(L, -1, nil)))
                }
            case LUA_TBOOLEAN:
                out[key] = .flag(lua_toboolean(L, -1) != 0)
            case LUA_TTABLE:
                var items: [String] = []
                let count = lua_rawlen(L, -1)
                if count > 0 {
                    for i in 1...count {
                        lua_rawgeti(L, -1, lua_Integer(i))
                        if lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER,
                            let s = rt.string(at: -1)
                        {
                            items.append(s)
                        }
                        luashim_pop(L, 1)
                    }
                }
                out[key] = .list(items)
            default:
                break
            }
        }
        return out
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
