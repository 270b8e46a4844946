import CLua
import CLuaShim

/// What a failed protected call left: its traceback, its message and the limit it met.
extension LuaRuntime {
    /// The traceback recorded by the last failed protected call (cleared after reading), without
    /// the frames of the host's own Lua chunks (``TracebackText``).
    public func takeTraceback() -> String? {
        luashim_push_last_traceback(L)
        let tb = lua_type(L, -1) == LUA_TSTRING ? string(at: -1).map(TracebackText.hidingHostFrames) : nil
        luashim_pop(L, 1)
        lua_pushnil(L)
        lua_setfield(L, luashim_registryindex(), "responder.lastTraceback")
        return tb
    }

    /// Converts the error value on top of the stack (popped) into a `LuaFailure`.
    public func popFailure(status: Int32) -> LuaFailure {
        // (described first: an error object's __tostring may itself meet a limit)
        let isText = lua_type(L, -1) == LUA_TSTRING  // (before describing: it converts a number)
        let message = describeError(at: -1)
        let c = control.pointee
        luashim_pop(L, 1)
        let traceback = takeTraceback()
        if c.limitRaised != 0 || status == LUA_ERRMEM {
            if c.timedOut != 0 {
                let text =
                    luashim_timeout_message(L).map { String(cString: $0) }
                    ?? "time limit exceeded (\(LuaLimits.describe(seconds: limits.timeoutSeconds ?? 0))); raise it with --timeout SECONDS"
                return LuaFailure(kind: .timeout, message: text, traceback: traceback)
            }
            if c.budgetExceeded != 0 {
                let n = limits.maxInstructions ?? 0
                return LuaFailure(
                    kind: .instructionLimit,
                    message:
                        "\(locationPrefix(of: message))instruction limit exceeded (\(n) instructions); raise it with --max-instructions N",
                    traceback: traceback)
            }
            if c.memoryExceeded != 0 || status == LUA_ERRMEM {
                let mib = limits.maxMemoryMiB ?? 0
                return LuaFailure(
                    kind: .memoryLimit,
                    message:
                        "\(memoryLimitLocation(traceback))memory limit exceeded (\(mib) MiB); raise it with --max-memory MiB",
                    // an allocation the cap refused: Lua raised it without the message handler,
                    // so the traceback is the one recorded as the allocator refused
                    traceback: traceback ?? luashim_memory_refused_traceback(L).map { String(cString: $0) })
            }
            if message.hasSuffix("interrupted!") {
                return LuaFailure(kind: .interrupted, message: "interrupted!", traceback: traceback)
            }
        }
        // an error value (`error(Bad{…})`, a table, a number) carries no place, which Lua adds
        // only to strings: it is named after the script line that raised it (SPEC §3: errors
        // print as `error: FILE:LINE: message`)
        let placed = isText ? message : firstScriptLocation(in: traceback) + message
        return LuaFailure(kind: .script, message: placed, traceback: traceback)
    }

    /// Where a memory limit struck: the traceback's first script frame or, for an allocation the
    /// cap refused (Lua raises that without a traceback), the line recorded then.
    private func memoryLimitLocation(_ traceback: String?) -> String {
        let place = firstScriptLocation(in: traceback)
        if !place.isEmpty { return place }
        return luashim_memory_refused_where(L).map { String(cString: $0) } ?? ""
    }

    /// `file:line: ` of the first script frame of a traceback (or "").
    private func firstScriptLocation(in traceback: String?) -> String {
        guard let traceback else { return "" }
        for line in traceback.split(separator: "\n").dropFirst() {
            let frame = line.drop { $0 == "\t" || $0 == " " }
            if frame.hasPrefix("[C]") || frame.hasPrefix("(") { continue }
            let parts = frame.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3, Int(parts[1]) != nil { return "\(parts[0]):\(parts[1]): " }
        }
        return ""
    }

    private func locationPrefix(of message: String) -> String {
        // "file.lua:12: instruction limit exceeded" -> "file.lua:12: "
        let suffix = ": instruction limit exceeded"
        guard message.hasSuffix(suffix) else { return "" }
        return String(message.dropLast(suffix.count)) + ": "
    }

    /// Text of an error value: strings as they are, `__tostring` when present, else a description.
    public func describeError(at index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TSTRING, LUA_TNUMBER:
            return string(at: index) ?? "?"
        case LUA_TNIL:
            return "(error object is a nil value)"  // as lua.c words it
        default:
            if luaL_getmetafield(L, index, "__tostring") != LUA_TNIL {
                luashim_pop(L, 1)
                return describe(index)
            }
            return "(error object is a \(String(cString: luashim_typename_at(L, index))) value)"
        }
    }
}
