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
    ///
    /// At most `TextClip.fields` characters are made, for this description and every value
    /// described inside it together (a field holding a value shows that value's fields): the
    /// fields past the budget are counted, not rendered. Values sharing values (`v = E{x = v,
    /// y = v}`, levels deep) took time doubling with each level, and a value of millions of
    /// fields made a Swift string of each before the text was cut, hundreds of megabytes outside
    /// the memory cap (found by an adversary probe): the keys are now sorted a bounded batch at a
    /// time, keeping only as many as can be shown.
    ///
    /// Keys that are neither strings, numbers nor booleans are sorted by their text. In the
    /// outermost description each such key is described on a budget of its own, of
    /// `TextClip.column` characters, so that keys never leave nothing for the fields and the
    /// order does not depend on which keys came first; inside, keys draw on the shared budget
    /// like fields. A key's text is kept cut to `TextClip.column` characters (a key whose
    /// `__tostring` made 60,000 characters, 16,000 times, took 1.9 GB outside a 64 MiB cap: found
    /// by an adversary probe).
    static func describeFields(_ L: OpaquePointer, _ t: Int32, hiddenKeys: Set<String>) -> String {
        let rt = LuaRuntime.of(L)
        let m = rt.moduleState
        let outermost = m?.describeBudget == nil
        if outermost { m?.describeBudget = TextClip.fields }
        defer { if outermost { m?.describeBudget = nil } }
        if let budget = m?.describeBudget, budget <= 0 { return "…" }
        let table = lua_absindex(L, t)
        // keys that are neither strings, numbers nor booleans are kept here to be read again
        luashim_newtable(L)
        let others = lua_gettop(L)
        defer { lua_settop(L, others - 1) }
        var keys: [FieldKey] = []
        // a field takes at least four characters (`k=v, `): no more keys than that can be shown
        let keep = TextClip.fields / 4 + 1
        var count = 0
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            luashim_pop(L, 1)
            var key = FieldKey(group: 2, number: 0, integer: nil, text: "", written: "", slot: 0)
            switch lua_type(L, -1) {
            case LUA_TSTRING:
                key.group = 1
                let (text, whole) = clippedString(L, at: -1, to: TextClip.column)
                key.text = text
                key.written = whole && isName(text) ? text : "[" + FieldsPayload.quote(text) + "]"
                if !whole {  // the key itself is read from the side table: its text is cut
                    key.slot = lua_Integer(lua_rawlen(L, others)) + 1
                    lua_pushvalue(L, -1)
                    lua_rawseti(L, others, key.slot)
                }
            case LUA_TNUMBER:
                key.group = 0
                key.number = lua_tonumberx(L, -1, nil)
                if lua_isinteger(L, -1) != 0 { key.integer = luashim_tointeger(L, -1, nil) }
                lua_pushvalue(L, -1)
                key.text = rt.describe(-1)
                luashim_pop(L, 1)
                key.written = "[" + key.text + "]"
            default:
                // described on a budget of its own in the outermost description (see above)
                let fieldsLeft = m?.describeBudget
                if outermost { m?.describeBudget = TextClip.column }
                lua_pushvalue(L, -1)
                luashim_tostring(L, -1)
                key.text = clippedString(L, at: -1, to: TextClip.column).text
                luashim_pop(L, 2)
                if outermost {
                    m?.describeBudget = fieldsLeft
                } else if let budget = m?.describeBudget {
                    m?.describeBudget = budget - key.text.utf8.count
                }
                key.written = "[" + key.text + "]"
                if lua_type(L, -1) != LUA_TBOOLEAN {
                    key.slot = lua_Integer(lua_rawlen(L, others)) + 1
                    lua_pushvalue(L, -1)
                    lua_rawseti(L, others, key.slot)
                }
            }
            if hiddenKeys.contains(key.text) { continue }
            count += 1
            keys.append(key)
            if keys.count >= 2 * keep {
                keys.sort(by: FieldKey.precedes)
                keys.removeLast(keys.count - keep)
            }
        }
        keys.sort(by: FieldKey.precedes)
        var text = ""
        var shown = 0
        for (i, key) in keys.enumerated() {
            let left = min(TextClip.fields - text.utf8.count, m?.describeBudget ?? Int.max)
            if left <= 0 { break }
            key.push(L, rt, others)
            lua_rawget(L, table)
            let field = "\(key.written)=\(LuaPayload.render(L, rt, -1))"
            luashim_pop(L, 1)
            if let budget = m?.describeBudget { m?.describeBudget = budget - field.utf8.count }
            if text.utf8.count + field.utf8.count > TextClip.fields { break }
            text += (i > 0 ? ", " : "") + field
            shown += 1
        }
        // the fields past the budget, and those never kept (`keep`), counted
        if shown < count { text += (shown > 0 ? ", " : "") + "… (\(count - shown) more fields)" }
        return text
    }

    /// The string at `index`, at most `limit` characters of it (read without copying the rest),
    /// and whether that is the whole string.
    static func clippedString(_ L: OpaquePointer, at index: Int32, to limit: Int) -> (text: String, whole: Bool) {
        var len = 0
        guard let p = luashim_tolstring(L, index, &len) else { return ("?", true) }
        // a character takes at most 4 bytes: this many bytes hold the characters kept
        let read = min(len, limit * 4)
        let text = p.withMemoryRebound(to: UInt8.self, capacity: read) {
            String(decoding: UnsafeBufferPointer(start: $0, count: read), as: UTF8.self)
        }
        if read == len && text.count <= limit { return (text, true) }
        return (String(text.prefix(limit)) + "… (more characters)", false)
    }

    /// One key of a value's fields as a description orders and writes it.
    private struct FieldKey {
        /// 0 numbers, 1 strings, 2 others.
        var group: Int
        var number: Double
        var integer: Int64?
        /// The key as sorted (strings) or shown (others).
        var text: String
        /// The key as written in the description.
        var written: String
        /// Where a key that is not a string, number or boolean, or a string cut in `text`, is kept
        /// (0: not kept).
        var slot: lua_Integer

        static func precedes(_ a: FieldKey, _ b: FieldKey) -> Bool {
            if a.group != b.group { return a.group < b.group }
            if a.group == 0 {
                switch (a.integer, b.integer) {
                case (let x?, let y?): return x < y  // (exact beyond 2^53)
                case (let x?, nil): return integer(x, isBelow: b.number)
                case (nil, let y?): return !integer(y, isBelow: a.number) && !integer(y, equals: a.number)
                case (nil, nil): if a.number != b.number { return a.number < b.number }
                }
            }
            return a.text < b.text
        }

        /// Whether `x < d`, exactly (as Lua compares an integer with a float: `2^63` is above
        /// `math.maxinteger`, which the nearest double cannot tell).
        static func integer(_ x: Int64, isBelow d: Double) -> Bool {
            if d >= 9_223_372_036_854_775_808.0 { return true }
            if d < -9_223_372_036_854_775_808.0 { return false }
            let whole = d.rounded(.down)  // in range: exact as an Int64
            return x < Int64(whole) || (x == Int64(whole) && d > whole)
        }

        /// Whether `x == d`, exactly.
        static func integer(_ x: Int64, equals d: Double) -> Bool {
            guard d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0, d == d.rounded(.down) else {
                return false
            }
            return Int64(d) == x
        }

        /// Pushes the key itself.
        func push(_ L: OpaquePointer, _ rt: LuaRuntime, _ others: Int32) {
            if slot > 0 {
                lua_rawgeti(L, others, slot)
                return
            }
            switch group {
            case 1: rt.pushString(text)
            case 0:
                if let integer { lua_pushinteger(L, lua_Integer(integer)) } else { lua_pushnumber(L, number) }
            default: lua_pushboolean(L, text == "true" ? 1 : 0)
            }
        }
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
