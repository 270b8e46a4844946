import CLua
import CLuaShim
import ResponderKit
import Testing

@testable import ResponderLua

@Suite("Lua bytecode without names")
struct LuaBytecodeTests {
    /// Nested functions, locals, upvalues, and constants of every kind the dump writes.
    static let source = """
        local long = "a long string constant, longer than forty bytes, stored as a long string"
        local function outer(x)
          local count = 0
          local function inner(y)
            count = count + 1
            local t = { flag = true, none = false, ratio = 2.5, big = 1 << 40, text = long }
            if y == nil then return t.missing.field end
            return x + y + count + t.ratio + (t.flag and 1 or 0)
          end
          return inner
        end
        return outer(1)(2), #long, outer
        """

    func makeRuntime() throws -> LuaRuntime {
        try Scenario.makeRuntime(ScenarioOptions(limits: .unlimited))
    }

    func dump(_ rt: LuaRuntime) throws -> [UInt8] {
        #expect(rt.load(Array(Self.source.utf8), chunkname: "=probe") == nil)
        let code = try #require(HostChunkCache.dump(rt.L))
        lua_settop(rt.L, 0)
        return code
    }

    func loadBinary(_ code: [UInt8], _ rt: LuaRuntime) -> Int32 {
        code.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { luaL_loadbufferx(rt.L, $0.baseAddress, $0.count, "=probe", "b") }
        }
    }

    /// Runs the loaded chunk, then calls the returned `outer(5)(nil)` and returns its error message.
    func runAndFail(_ rt: LuaRuntime) throws -> (Double, Int64, String) {
        let L = rt.L
        #expect(lua_pcallk(L, 0, 3, 0, 0, nil) == LUA_OK)
        let sum = lua_tonumberx(L, 1, nil)
        let length = lua_tointegerx(L, 2, nil)
        lua_pushinteger(L, 5)
        #expect(lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_OK)  // outer(5): inner
        lua_pushnil(L)
        #expect(lua_pcallk(L, 1, 1, 0, 0, nil) == LUA_ERRRUN)  // inner(nil)
        let message = try #require(rt.string(at: -1))
        lua_settop(L, 0)
        return (sum, length, message)
    }

    @Test func theChunkRunsAsBeforeAndKeepsItsLinesButNotItsNames() throws {
        let rt = try makeRuntime()
        let code = try dump(rt)
        let lean = try #require(LuaBytecode.withoutNames(code))
        #expect(lean.count < code.count)

        #expect(loadBinary(code, rt) == LUA_OK)
        let before = try runAndFail(rt)
        #expect(loadBinary(lean, rt) == LUA_OK)
        let after = try runAndFail(rt)

        #expect(before.0 == 1 + 2 + 1 + 2.5 + 1)
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        // the same place, the variable's name gone
        #expect(before.2 == "probe:7: attempt to index a nil value (field 'missing')")
        #expect(after.2 == "probe:7: attempt to index a nil value (field 'missing')")

        // a nil local: named before, not after
        let local = "local function f() local thing; return thing.x end\nreturn f"
        #expect(rt.load(Array(local.utf8), chunkname: "=probe") == nil)
        let localCode = try #require(HostChunkCache.dump(rt.L))
        lua_settop(rt.L, 0)
        let localLean = try #require(LuaBytecode.withoutNames(localCode))
        var messages: [String] = []
        for c in [localCode, localLean] {
            #expect(loadBinary(c, rt) == LUA_OK)
            #expect(lua_pcallk(rt.L, 0, 1, 0, 0, nil) == LUA_OK)
            #expect(lua_pcallk(rt.L, 0, 0, 0, 0, nil) == LUA_ERRRUN)
            messages.append(rt.string(at: -1) ?? "")
            lua_settop(rt.L, 0)
        }
        #expect(
            messages == [
                "probe:1: attempt to index a nil value (local 'thing')", "probe:1: attempt to index a nil value",
            ])
    }

    @Test func anythingElseIsRefusedNotMisread() throws {
        let rt = try makeRuntime()
        let code = try dump(rt)
        // every truncation, and one extra byte
        for n in 0..<code.count {
            #expect(LuaBytecode.withoutNames(Array(code.prefix(n))) == nil, "truncated at \(n)")
        }
        #expect(LuaBytecode.withoutNames(code + [0]) == nil)
        // another version byte; text instead of bytecode
        var other = code
        other[4] = 0x53
        #expect(LuaBytecode.withoutNames(other) == nil)
        #expect(LuaBytecode.withoutNames(Array(Self.source.utf8)) == nil)
        // a constant of an unknown kind: the long string's tag, before its one-byte size
        let text = Array("a long string constant".utf8)
        let at = try #require(
            (0..<(code.count - text.count)).first { Array(code[$0..<($0 + text.count)]) == text })
        #expect(code[at - 2] == 0x14)
        var unknown = code
        unknown[at - 2] = 0x77
        #expect(LuaBytecode.withoutNames(unknown) == nil)
    }
}
