import CLua
import CLuaShim
import ResponderEngine

/// `a == b` on event and error values (SPEC §2.1: values are immutable, so they compare by value,
/// as Swift's `Equatable` events do; `assert.are.same(E{item = "b"}, outcome.value)` holds).
extension ValueBinding {
    /// `__eq`: true when both are values of the same type with the same fields. Each field is
    /// compared raw (`rawequal`: nodes and other userdata by identity), except a value in a field,
    /// which is compared the same way, and a plain table (no metatable), compared by its keys and
    /// values the same way, as `assert.are.same` compares tables (a list in a field compared by
    /// identity: `Loaded{items = {"a"}} ~= Loaded{items = {"a"}}`; found by an acceptance probe).
    /// Nested pairs are compared from a work list, not by recursion; a pair of tables met again
    /// (a cycle) counts as equal there; no metamethod runs (nothing here can raise). The `cause`
    /// is not compared: it says where a value came from, not what it is.
    static let eq: LuaSwiftFunction = { L in
        let m = state(L)
        lua_settop(L, 2)
        luashim_newtable(L)  // 3: pairs still to compare, work[2i - 1] and work[2i]
        luashim_newtable(L)  // 4: tables already paired: seen[a] = the set of the tables a was paired with
        lua_pushvalue(L, 1)
        lua_rawseti(L, 3, 1)
        lua_pushvalue(L, 2)
        lua_rawseti(L, 3, 2)
        var pending = 2
        var equal = true
        var compared = 0
        var nextCheck = 4096
        while equal && pending > 0 {
            // The work list and the pairs seen are Lua tables made here, in host code, where an
            // allocation past the cap is not refused: once the cap is crossed, a cap that still
            // stands after a collection ends the walk, and the trampoline raises the memory limit
            // (comparing two deep values went 357 MB past it: found by an adversary probe).
            if compared >= nextCheck {
                nextCheck = compared + 4096
                if m.runtime.control.pointee.memoryExceeded != 0 && luashim_memory_limit_stands(L) != 0 {
                    return 0
                }
            }
            lua_rawgeti(L, 3, lua_Integer(pending - 1))  // 5
            lua_rawgeti(L, 3, lua_Integer(pending))  // 6
            pending -= 2
            if lua_type(L, 5) == LUA_TTABLE {
                equal = sameTables(m, 5, 6, work: 3, pending: &pending, compared: &compared)
            } else {
                equal = sameFields(m, 5, 6, work: 3, pending: &pending, compared: &compared)
            }
            lua_settop(L, 4)
        }
        // the fields walked count as work (a script comparing large values in a loop)
        if compared > 0 { m.world.work.charge(compared) }
        lua_pushboolean(L, equal ? 1 : 0)
        return 1
    }

    /// Whether the values at `a` and `b` have one type and the same fields.
    private static func sameFields(
        _ m: ModuleState, _ a: Int32, _ b: Int32, work: Int32, pending: inout Int, compared: inout Int
    ) -> Bool {
        let L = m.L
        guard let ta = type(m, at: a), let tb = type(m, at: b), ta === tb else { return false }
        luashim_value_fields(L, a)  // fields of a
        let fa = lua_gettop(L)
        luashim_value_fields(L, b)  // fields of b
        let fb = lua_gettop(L)
        guard lua_type(L, fa) == LUA_TTABLE, lua_type(L, fb) == LUA_TTABLE else {
            return lua_type(L, fa) == lua_type(L, fb)
        }
        return sameTables(m, fa, fb, work: work, pending: &pending, compared: &compared)
    }

    /// Whether the tables at `fa` and `fb` have the same keys with equal values; pairs of values,
    /// and of plain tables not paired before (the table after `work` keeps them), are appended
    /// to the work list at `work` instead of being compared here.
    private static func sameTables(
        _ m: ModuleState, _ fa: Int32, _ fb: Int32, work: Int32, pending: inout Int, compared: inout Int
    ) -> Bool {
        let L = m.L
        let seen = work + 1
        var count = 0
        defer { compared += count + 1 }
        lua_pushnil(L)
        while lua_next(L, fa) != 0 {
            count += 1
            let key = lua_gettop(L) - 1
            let va = key + 1
            lua_pushvalue(L, key)
            lua_rawget(L, fb)
            let vb = va + 1
            if lua_rawequal(L, va, vb) == 0 {
                // two values are compared as values, two plain tables as tables, each pair once:
                // a pair met again is being compared or was found equal (values sharing values,
                // `v = E{x = v, y = v}` levels deep, took time doubling with each level: found by
                // an adversary probe), and a cycle counts as equal
                let values = type(m, at: va) != nil && type(m, at: vb) != nil
                if !values {
                    guard isPlainTable(L, va), isPlainTable(L, vb) else { return false }
                }
                // seen[a] is the set of the tables (or values) a was paired with
                lua_pushvalue(L, va)
                if lua_rawget(L, seen) != LUA_TTABLE {
                    luashim_pop(L, 1)
                    luashim_newtable(L)
                    lua_pushvalue(L, va)
                    lua_pushvalue(L, -2)
                    lua_rawset(L, seen)
                }
                let partners = lua_gettop(L)
                lua_pushvalue(L, vb)
                let known = lua_rawget(L, partners) != LUA_TNIL
                luashim_pop(L, 1)
                if known {
                    lua_settop(L, key)
                    continue
                }
                lua_pushvalue(L, vb)
                lua_pushboolean(L, 1)
                lua_rawset(L, partners)
                luashim_pop(L, 1)
                lua_pushvalue(L, va)
                lua_rawseti(L, work, lua_Integer(pending + 1))
                lua_pushvalue(L, vb)
                lua_rawseti(L, work, lua_Integer(pending + 2))
                pending += 2
            }
            lua_settop(L, key)
        }
        // every key of a is in b with an equal value: b has no other when it has as many
        var inB = 0
        lua_pushnil(L)
        while lua_next(L, fb) != 0 {
            inB += 1
            luashim_pop(L, 1)
        }
        return count == inB
    }

    /// Whether the value at `index` is a table without a metatable.
    private static func isPlainTable(_ L: OpaquePointer?, _ index: Int32) -> Bool {
        guard lua_type(L, index) == LUA_TTABLE else { return false }
        if lua_getmetatable(L, index) != 0 {
            luashim_pop(L, 1)
            return false
        }
        return true
    }
}
