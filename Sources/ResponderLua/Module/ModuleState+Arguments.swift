import CLua
import CLuaShim
import ResponderEngine

/// How arguments are described in errors: kind names, `bad argument` messages, failures and the
/// script location they are raised at.
extension ModuleState {

    /// How an argument is named in `bad argument` messages: `event`, `error type`, `node`, `string`…
    package func kindName(at index: Int32) -> String {
        if lua_type(L, index) == LUA_TUSERDATA {
            if let v = value(at: index) { return v.kind == .event ? "event" : "error" }
            if let t = valueType(at: index) { return t.kind == .event ? "event type" : "error type" }
            for (i, ref) in metatables.enumerated() where ref != LUA_NOREF && luashim_to_object(L, index, ref) != nil {
                return kindLabels[i]
            }
            if let kind = finalizedKind(at: index) { return "finalized \(label(kind))" }
        }
        return String(cString: luashim_typename_at(L, index))
    }

    /// The kind of the userdata at `index` when it is one of ours whose finalizer already ran
    /// (a `__gc` metamethod resurrected it): its Swift object is gone.
    func finalizedKind(at index: Int32) -> ObjectKind? {
        guard let block = lua_touserdata(L, index), lua_getmetatable(L, index) != 0 else { return nil }
        defer { luashim_pop(L, 1) }
        for raw in metatables.indices where metatables[raw] != LUA_NOREF {
            let kind = ObjectKind(rawValue: raw)
            lua_rawgeti(L, luashim_registryindex(), lua_Integer(metatable(kind)))
            let same = lua_rawequal(L, -1, -2) != 0
            luashim_pop(L, 1)
            guard same else { continue }
            if kind == .value {
                let cell = block.assumingMemoryBound(to: luashim_value_cell.self)
                return luashim_value_type(cell) == nil ? .value : nil
            }
            return block.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee == nil ? kind : nil
        }
        return nil
    }

    /// How messages name `kind` (`node`, `State`, …).
    func label(_ kind: ObjectKind) -> String { kindLabels[kind.rawValue] }

    /// Pushes what `tostring` shows for a userdata of `kind` without its Swift object:
    /// `finalized KIND` (resurrected by a `__gc` metamethod) or the bare kind.
    package func pushPlaceholderName(at index: Int32, _ kind: ObjectKind) {
        runtime.pushString(finalizedKind(at: index) != nil ? "finalized \(label(kind))" : label(kind))
    }

    /// Raises `KIND used after it was finalized` for a resurrected userdata at `index`.
    func finalizedError(_ kind: ObjectKind) -> Int32 {
        failAtScriptLine("\(label(kind)) used after it was finalized (a __gc metamethod kept it)")
    }

    /// Raises `message` at the innermost script line (``location()``: past the host's chunks and
    /// C functions), where ``fail(_:)`` names the caller of the running C function.
    package func failAtScriptLine(_ message: String) -> Int32 {
        let place = location().map { "\($0.file):\($0.line): " } ?? ""
        return runtime.raise(place + message)
    }

    /// `file:line: bad argument #n to 'name' (expected expected, got …)` and LUASHIM_RAISE.
    package func argError(_ n: Int, _ name: String, _ expected: String, _ index: Int32) -> Int32 {
        let got = given(at: index, expected: expected)
        if n == 0 {  // the self argument, worded as Lua's luaL_argerror words it
            return runtime.raise(
                "\(runtime.whereString())calling '\(name)' on bad self (\(expected) expected, got \(got))"
                    + runtime.dotCallHint(name, receiver: expected))
        }
        return runtime.raise(
            "\(runtime.whereString())bad argument #\(n) to '\(name)' (\(expected) expected, got \(got))")
    }

    /// What the value at `index` is, as an error's "got …" says it: its kind, and the number
    /// itself where a number of some range is expected, or the string where one of some strings
    /// is ("got number 9", "got string \"Strict\"").
    package func given(at index: Int32, expected: String) -> String {
        var got = lua_type(L, index) == LUA_TNONE ? "no value" : kindName(at: index)
        if lua_type(L, index) == LUA_TNUMBER,
            ["number", "index", "integer", "count", "position"].contains(where: expected.contains)
        {
            got += " " + runtime.describe(index)
        } else if lua_type(L, index) == LUA_TSTRING, expected.contains("\""), let s = runtime.string(at: index) {
            got += " \"" + TextClip.clip(s, to: TextClip.column) + "\""
        }
        return got
    }

    /// Raises a located message.
    package func fail(_ message: String) -> Int32 {
        runtime.raise("\(runtime.whereString())\(message)")
    }

    /// The innermost script line on the stack, as an engine location.
    package func location() -> SourceLocation? {
        runtime.scriptLocation().map { SourceLocation(file: $0.file, line: $0.line) }
    }
}

extension ModuleState {
    /// `__newindex` of the read-only objects (outcome, trace, `ctx`, publisher): an assignment
    /// says what it tried and that the object is read-only, instead of Lua's "attempt to index".
    static let readOnlyNewindex: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let key = lua_type(L, 2) == LUA_TSTRING ? (m.runtime.string(at: 2) ?? "?") : m.runtime.describe(2)
        let kind = m.kindName(at: 1)
        let article = kind.first.map { "aeiou".contains($0) } == true ? "an" : "a"
        return m.fail(
            "cannot assign field '\(TextClip.clip(key, to: TextClip.column))' of \(article) \(kind) (it is read-only)")
    }
}
