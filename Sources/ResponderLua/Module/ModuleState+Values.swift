import CLua
import CLuaShim
import ResponderEngine

/// Event and error values between Lua and the engine: the Swift value of a value userdata (made
/// on first need, cached in the cell's `live` pointer, see ``LuaPayload``), and the userdata of a
/// Swift value with the cause chain the engine gave it.
extension ModuleState {
    /// The Swift value for the value userdata at `index` (made on first need, then reused while
    /// it lives), or nil when `index` holds no value.
    package func value(at index: Int32) -> Value? {
        guard let cell = luashim_to_value(L, index, metatable(.value)) else { return nil }
        // the common case, a value without a cause in Lua: its cached Swift value, or a new one.
        // Lifetime proof for `live`: see `LuaPayload` (the value's own payload clears it).
        let hasCause = lua_getiuservalue(L, index, 3) == LUA_TUSERDATA
        luashim_pop(L, 1)
        if !hasCause {
            if let live = cell.pointee.live { return Unmanaged<Value>.fromOpaque(live).takeUnretainedValue() }
            return makeValue(cell, at: index, cause: nil)
        }
        // A value with a cause: its cached Swift value when that value's chain is the chain in
        // Lua (the truth: a later push may have given one of the links a newer cause), else the
        // chain made again from Lua, where a cached value is reused only for a link that has no
        // cause, in Lua or in Swift.
        if let live = cell.pointee.live {
            let value = Unmanaged<Value>.fromOpaque(live).takeUnretainedValue()
            if chainMatches(value, at: index) { return value }
        }
        // The cause chain can be long (an error raised in each of many error responders): walk it
        // without recursion, keeping each link on the Lua stack with room checked for it (C code
        // may only use LUA_MINSTACK slots unchecked), then make the Swift values deepest first. A
        // link seen before ends the chain (pushes never make a cycle, see `push(_:)`; a guard).
        // Test: scripts/tests/safety/cause_chain_spec.lua.
        let base = lua_gettop(L)
        lua_pushvalue(L, index)
        var cells = [cell]
        var seen: Set<UnsafeMutableRawPointer> = [UnsafeMutableRawPointer(cell)]
        var cause: Value?
        while lua_checkstack(L, 4) != 0 {
            guard lua_getiuservalue(L, -1, 3) == LUA_TUSERDATA,
                let next = luashim_to_value(L, -1, metatable(.value)),
                seen.insert(UnsafeMutableRawPointer(next)).inserted
            else {
                luashim_pop(L, 1)
                break
            }
            if let live = next.pointee.live {
                let linkHasCause = lua_getiuservalue(L, -1, 3) == LUA_TUSERDATA
                luashim_pop(L, 1)
                let cached = Unmanaged<Value>.fromOpaque(live).takeUnretainedValue()
                if !linkHasCause && cached.cause == nil {
                    cause = cached
                    luashim_pop(L, 1)
                    break
                }
            }
            cells.append(next)
        }
        if cells.count > 1 { world.work.charge(cells.count) }
        // the links made here count against the memory cap while they live (a trace charges
        // only the values it keeps, not their causes)
        for (i, link) in cells.enumerated().reversed() {
            cause = makeValue(link, at: base + 1 + Int32(i), cause: cause, charged: i > 0)
        }
        lua_settop(L, base)
        return cause
    }

    /// Whether the cause chain of `value` is, link by link, the chain of the value userdata at
    /// `index` in Lua (the same userdata at each link, and both ending together). Walks both
    /// without allocating, one link on the Lua stack at a time; charged by its length.
    private func chainMatches(_ value: Value, at index: Int32) -> Bool {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        lua_pushvalue(L, index)
        var link: Value? = value
        var steps = 0
        while let current = link {
            guard let identity = current.payload?.identity, identity == UnsafeRawPointer(lua_touserdata(L, -1)) else {
                return false
            }
            steps += 1
            let luaHasCause = lua_getiuservalue(L, -1, 3) == LUA_TUSERDATA
            luashim_remove(L, -2)
            link = current.cause
            if luaHasCause != (link != nil) { return false }
        }
        if steps > 1 { world.work.charge(steps) }
        return true
    }

    /// The Swift value of the value userdata `cell` at `index`, made now (its `live` pointer is
    /// set to it): a payload referring to the userdata, and `cause`.
    private func makeValue(
        _ cell: UnsafeMutablePointer<luashim_value_cell>, at index: Int32, cause: Value?, charged: Bool = false
    ) -> Value {
        let type = Unmanaged<ValueType>.fromOpaque(luashim_value_type(cell)!).takeUnretainedValue()
        lua_pushvalue(L, index)
        let payload = LuaPayload(
            handle: handle, popping: L, hiddenKeys: type === luaErrorType ? LuaPayload.luaErrorHiddenKeys : [],
            meter: charged ? world.meter : nil)
        let value = Value(type: type, payload: payload, cause: cause)
        cell.pointee.live = Unmanaged.passUnretained(value).toOpaque()
        return value
    }

    /// Pushes a new value userdata of `type` whose fields are the table on top of the stack
    /// (popped).
    ///
    /// The value's cell refers to the block of the type's userdata, which its user value 2 keeps
    /// alive; the Swift type is read through that block, so a value resurrected by a `__gc`
    /// metamethod after its type's finalizer ran is no longer taken for a value (see
    /// `luashim_to_value`) instead of reading a released type.
    func pushNewValue(_ type: ValueType) {
        let fields = lua_gettop(L)
        push(type)
        _ = luashim_new_value(L, lua_touserdata(L, fields + 1), metatable(.value))
        lua_pushvalue(L, fields)
        lua_setiuservalue(L, -2, 1)
        lua_pushvalue(L, fields + 1)
        lua_setiuservalue(L, -2, 2)
        luashim_replace(L, fields)
        luashim_pop(L, 1)
    }
    func valueType(at index: Int32) -> ValueType? { object(at: index, .type, as: ValueType.self) }

    /// Pushes a value (or nil): its own userdata, with the cause the engine gave it.
    ///
    /// The cause chain can be long (an error raised in each of many error responders): it is
    /// pushed from the deepest cause up without recursion, one link on the Lua stack at a time
    /// (C code may only use LUA_MINSTACK slots unchecked).
    /// Test: scripts/tests/safety/cause_chain_spec.lua.
    func push(_ value: Value?) {
        guard let value else {
            lua_pushnil(L)
            return
        }
        // the common case, a value without a cause that has its userdata: push it
        if value.cause == nil, let payload = value.payload as? LuaPayload {
            payload.pushUserdata(L)
            return
        }
        // The chain as the userdata will hold it: a link whose userdata is already in it ends it
        // (a userdata has one cause, so it cannot appear twice in a chain without a cycle).
        var chain: [Value] = []
        var seen: Set<UnsafeRawPointer> = []
        var next: Value? = value
        while let link = next {
            if let identity = link.payload?.identity, !seen.insert(identity).inserted { break }
            chain.append(link)
            next = link.cause
        }
        // each push walks the whole chain (scripts/fuzz-findings.md F11): charged by its length
        if chain.count > 1 { world.work.charge(chain.count) }
        _ = lua_checkstack(L, 8)
        for (i, link) in chain.enumerated().reversed() {
            if let payload = link.payload as? LuaPayload {
                payload.pushUserdata(L)
                if i == chain.count - 1 && chain.count > 1 {
                    // the deepest link: its cause is what its Swift value says (none), so that
                    // the chain written here ends where it ends in Swift. With every link's cause
                    // set by this push, the links form a path that ends in nil: no push makes a
                    // cycle (whatever causes other userdata had before).
                    lua_pushnil(L)
                    setCauseOfValue(link)
                }
            } else {
                // a value made by the engine itself: give it a userdata of its own fields
                luashim_newtable(L)
                if let fields = link.payload as? FieldsPayload {
                    for (k, v) in fields.strings {
                        runtime.pushString(v)
                        lua_setfield(L, -2, k)
                    }
                }
                pushNewValue(link.type)
            }
            if i < chain.count - 1 {  // the link's cause was pushed just before it
                luashim_insert(L, -2)
                setCauseOfValue(link)
            }
        }
    }

    /// Pops the cause on top of the stack into the value userdata below it (user value 3), the
    /// userdata of `link`. A Swift value of the same userdata with another cause (the value `live`
    /// points at, when the link is a copy of it) must not be handed out for it any more.
    /// (Clearing `live` is always safe: it is a cache, see `LuaPayload`. The cell is the one the
    /// link's payload keeps alive; a userdata the engine's own value was just given has no
    /// Swift value cached.)
    private func setCauseOfValue(_ link: Value) {
        lua_setiuservalue(L, -2, 3)
        if let identity = link.payload?.identity {
            let cell = UnsafeMutableRawPointer(mutating: identity).assumingMemoryBound(to: luashim_value_cell.self)
            if cell.pointee.live != Unmanaged.passUnretained(link).toOpaque() { cell.pointee.live = nil }
        }
    }
}
