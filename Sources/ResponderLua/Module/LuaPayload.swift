import CLua
import CLuaShim
import ResponderEngine

/// The Swift side of a Lua event or error value: a registry reference to the value's userdata
/// (whose first user value is the fields table), released when the Swift value goes away.
///
/// Values live in Lua as userdata without finalizers; a Swift `Value` is made only when one
/// enters the engine, and the cell's `live` pointer caches the one made last (cleared here, and
/// when pushing a copy with another cause gives the userdata a new cause: the next use then
/// makes a Swift value with that cause).
///
/// Lifetime proof for the cell's unretained `live` pointer: `live` is only ever set to a value
/// whose payload owns it (`ownsLive`; the engine gives copies of a value their own payload
/// through ``payloadForCopy()``, whose deinit leaves `live` alone), and such a payload clears
/// `live` when its value goes away, whatever it points at then (clearing a cache never hurts);
/// so `live` is nil or points at a living value. The payload's registry reference keeps the
/// userdata (the cell) alive until then.
/// Test: "an error re-raised with a new cause" in scripts/tests/safety/lifetimes_spec.lua.
final class LuaPayload: ValuePayload {
    // (stored properties ordered so that the object stays in the allocator's 64-byte class)
    let handle: StateHandle
    let ref: Int32
    /// Whether this payload's value is the one the cell's `live` points at (false for copies).
    private let ownsLive: Bool
    /// Whether this payload's value counts against the memory cap for itself (the links of a
    /// cause chain made again from Lua; other values are charged by the traces that keep them).
    private let charged: Bool
    /// Keys left out of descriptions (LuaError's long traceback).
    let hiddenKeys: Set<String>
    /// LuaError's hidden keys, made once.
    static let luaErrorHiddenKeys: Set<String> = ["traceback"]
    /// The userdata's memory block (its cell): the same for every payload of one Lua value, and no
    /// other value's while this payload lives (its reference keeps the userdata, which Lua never
    /// moves).
    let identity: UnsafeRawPointer?

    /// Refers to the value userdata on top of the stack (popped); with a `meter`, charges the
    /// value (``Value`` and this payload) to it while it lives.
    init(
        handle: StateHandle, popping L: OpaquePointer, hiddenKeys: Set<String> = [], ownsLive: Bool = true,
        meter: MemoryMeter? = nil
    ) {
        self.handle = handle
        self.identity = UnsafeRawPointer(lua_touserdata(L, -1))
        self.ref = luaL_ref(L, luashim_registryindex())
        self.hiddenKeys = hiddenKeys
        self.ownsLive = ownsLive
        self.charged = meter != nil
        meter?.charge(LuaPayload.chargedBytes)
    }

    /// What a charged value takes: the value and payload objects and the registry slot.
    static let chargedBytes = MemoryMeter.Cost.object(32) + MemoryMeter.Cost.object(48) + 16

    deinit {
        // (once the state is closed there is nothing to clear, and its meter is disconnected)
        guard let L = handle.L else { return }
        if ownsLive, let identity {
            // the cell, alive until the reference below is given back
            UnsafeMutableRawPointer(mutating: identity).assumingMemoryBound(to: luashim_value_cell.self).pointee.live =
                nil
        }
        luaL_unref(L, luashim_registryindex(), ref)
        if charged { LuaRuntime.of(L).moduleState?.world.meter.release(LuaPayload.chargedBytes) }
    }

    /// A payload on the same userdata for a copy of the value (it does not own `live`).
    func payloadForCopy() -> any ValuePayload {
        guard let L = handle.L else { return self }
        pushUserdata(L)
        return LuaPayload(handle: handle, popping: L, hiddenKeys: hiddenKeys, ownsLive: false)
    }

    /// Pushes the value's userdata.
    func pushUserdata(_ L: OpaquePointer) {
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(ref))
    }

    func pushFields(_ L: OpaquePointer) {
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(ref))
        luashim_value_fields(L, -1)
        luashim_remove(L, -2)
    }

    func fieldsDescription() -> String {
        guard let L = handle.L else { return "" }
        pushFields(L)
        defer { luashim_pop(L, 1) }
        return LuaPayload.describeFields(L, lua_gettop(L), hiddenKeys: hiddenKeys)
    }

    /// `k=v, …` of the fields table at `t`: number keys first (`[1]=…`, in numeric order), then
    /// string keys sorted (a key that is not a Lua name written as `["a b"]=…`), then others.
    static func describeFields(_ L: OpaquePointer, _ t: Int32, hiddenKeys: Set<String>) -> String {
        let rt = LuaRuntime.of(L)
        // (order group, number, integer, text as sorted, text as written, value)
        var pairs: [(Int, Double, Int64?, String, String, String)] = []
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            var group = 2
            var number = 0.0
            var integer: Int64?
            let key: String
            var written: String
            switch lua_type(L, -2) {
            case LUA_TSTRING:
                group = 1
                key = rt.string(at: -2) ?? "?"
                written = isName(key) ? key : "[" + FieldsPayload.quote(key) + "]"
            case LUA_TNUMBER:
                group = 0
                number = lua_tonumberx(L, -2, nil)
                if lua_isinteger(L, -2) != 0 { integer = luashim_tointeger(L, -2, nil) }
                lua_pushvalue(L, -2)
                key = rt.describe(-1)
                luashim_pop(L, 1)
                written = "[" + key + "]"
            default:
                lua_pushvalue(L, -2)
                key = rt.describe(-1)
                luashim_pop(L, 1)
                written = "[" + key + "]"
            }
            if !hiddenKeys.contains(key) {
                pairs.append((group, number, integer, key, written, LuaPayload.render(L, rt, -1)))
            }
            luashim_pop(L, 1)
        }
        pairs.sort { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.0 == 0, let x = a.2, let y = b.2 { return x < y }  // (exact beyond 2^53)
            if a.0 == 0 && a.1 != b.1 { return a.1 < b.1 }
            return a.3 < b.3
        }
        // all together at most `TextClip.fields` characters (each field is cut by `render`)
        var text = ""
        for (i, pair) in pairs.enumerated() {
            let field = "\(pair.4)=\(pair.5)"
            if text.utf8.count + field.utf8.count > TextClip.fields {
                text += (i > 0 ? ", " : "") + "… (\(pairs.count - i) more fields)"
                break
            }
            text += (i > 0 ? ", " : "") + field
        }
        return text
    }

    /// Whether `key` is a Lua name (letters, digits and `_`, not starting with a digit, not a
    /// reserved word): written bare in a value's text.
    static func isName(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(48...57).contains(first) else { return false }
        for byte in key.utf8 {
            let ok = (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 95
            if !ok { return false }
        }
        return !reservedWords.contains(key)
    }

    private static let reservedWords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    func stringField(_ name: String) -> String? {
        guard let L = handle.L else { return nil }
        let rt = LuaRuntime.of(L)
        pushFields(L)
        rt.pushString(name)
        lua_rawget(L, -2)
        let s = lua_type(L, -1) == LUA_TSTRING ? rt.string(at: -1) : nil
        luashim_pop(L, 2)
        return s
    }

    /// Renders a field value: strings quoted, everything else as `tostring` shows it.
    static func render(_ L: OpaquePointer, _ rt: LuaRuntime, _ index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TSTRING:
            // cut before quoting: the whole string is never copied (see `TextClip`)
            let s = rt.string(at: index) ?? ""
            guard s.utf8.count > TextClip.field, s.count > TextClip.field else { return FieldsPayload.quote(s) }
            return FieldsPayload.quote(String(s.prefix(TextClip.field)))
                + "… (\(s.count - TextClip.field) more characters)"
        case LUA_TTABLE:
            if luaL_getmetafield(L, index, "__tostring") != LUA_TNIL {
                luashim_pop(L, 1)
                return TextClip.clip(rt.describe(index), to: TextClip.field)
            }
            return "{…}"
        case LUA_TUSERDATA:
            // a node is described by the engine (as its __tostring would): no Lua call, which
            // fails where the error being described came from (a C stack overflow printed
            // `node=userdata: 0x…`; found by an acceptance probe)
            if let m = rt.moduleState, m.L == L, let node = m.node(at: index) { return node.description }
            return TextClip.clip(rt.describe(index), to: TextClip.field)
        default:
            return TextClip.clip(rt.describe(index), to: TextClip.field)
        }
    }
}
