import CLua
import CLuaShim
import ResponderKit
import Testing

@testable import ResponderLua

/// A Swift function that raises through the trampoline.
let raisingFunction: LuaSwiftFunction = { L in
    LuaRuntime.of(L).raise("swift says no")
}

/// A Swift function that allocates strings (host-side allocations).
let allocatingFunction: LuaSwiftFunction = { L in
    let rt = LuaRuntime.of(L)
    for i in 0..<64 {
        rt.pushString(String(repeating: "x", count: 1024) + "\(i)")
        luashim_pop(L, 1)
    }
    rt.pushString(String(repeating: "y", count: 4096))
    return 1
}

@Suite("Lua bridge")
struct BridgeTests {
    func makeRuntime(_ limits: LuaLimits = .unlimited) throws -> LuaRuntime {
        try Scenario.makeRuntime(ScenarioOptions(limits: limits))
    }

    @Test func errorsRaisedFromSwiftLeaveTheStackUnchangedAndLeakNothing() throws {
        let rt = try makeRuntime()
        rt.setGlobal("fail", raisingFunction)
        try rt.runString("function probe() local ok, e = pcall(fail) return ok, e end", chunkname: "=probe")
        let top = lua_gettop(rt.L)
        luashim_gc_collect(rt.L)
        let before = rt.memoryInUse
        for _ in 0..<100_000 {
            lua_getglobal(rt.L, "fail")
            let status = rt.callKeepingError(0, 0)
            #expect(status == LUA_ERRRUN)
            luashim_pop(rt.L, 1)
        }
        #expect(lua_gettop(rt.L) == top)
        luashim_gc_collect(rt.L)
        // the traceback string kept in the registry may differ by a few bytes; nothing grows per call
        #expect(rt.memoryInUse - before < 4096)
    }

    @Test func pcallInsideLuaCatchesSwiftErrorsWithTheirMessage() throws {
        let rt = try makeRuntime()
        rt.setGlobal("fail", raisingFunction)
        try rt.runString("ok, msg = pcall(fail)", chunkname: "=t")
        lua_getglobal(rt.L, "msg")
        #expect(rt.string(at: -1) == "swift says no")
        luashim_pop(rt.L, 1)
        #expect(lua_gettop(rt.L) == 0)
    }

    @Test func everyBindingFunctionLeavesTheStackBalanced() throws {
        let rt = try makeRuntime()
        let script = """
            local E = Event "E"
            local Err = Error "Err"
            local a = View "A" { id = "a", color = 1 }
            local root = View "Root" { a }
            root:handleEvent(E, function() end):handleError(function() end)
            root:triggers(E):reports(Err)
            mount(root)
            local o = a:trigger(E { x = 1 })
            local s = tostring(o.trace) .. tostring(o) .. tostring(o.value) .. o.value.name
            a:report(Err {})
            local p = root:publisher(E)
            a:subscribe(E, function() end)
            p(E {})
            root:find("#a"); root:findAll("A"); a:path(); a:responders()
            a:onTapGesture(function() end); tap(a)
            responder.warnings(); responder.lastTrace(); responder.reset()
            return 1, 2, 3
            """
        for _ in 0..<3 {
            let top = lua_gettop(rt.L)
            try rt.runString(script, chunkname: "=balanced", results: 0)
            #expect(lua_gettop(rt.L) == top)
        }
    }

    @Test func bindingErrorsLeaveTheStackBalanced() throws {
        let rt = try makeRuntime()
        let bad = [
            "View(1)", "View 'A':trigger('x')", "View 'A':add(1)", "Event(1)",
            "View 'A':receiveEvent(1)", "tap(View 'A')", "mount(1)", "Event 'E' (1)",
        ]
        for code in bad {
            let top = lua_gettop(rt.L)
            #expect(throws: LuaFailure.self) { try rt.runString(code, chunkname: "=bad") }
            #expect(lua_gettop(rt.L) == top)
        }
    }

    @Test func hostAllocationsOverTheCapDoNotUnwindSwiftAndRaiseAfterwards() throws {
        let rt = try makeRuntime(LuaLimits(maxInstructions: nil, maxMemoryMiB: 1))
        rt.setGlobal("alloc", allocatingFunction)
        // fill the heap close to the cap in Lua, then let Swift allocate past it
        let code = """
            local t = {}
            local ok = pcall(function() for i = 1, 1e6 do t[i] = i end end)
            return alloc()
            """
        var failure: LuaFailure?
        do { try rt.runString(code, chunkname: "=alloc") } catch { failure = error }
        #expect(failure?.kind == .memoryLimit)
        #expect(failure?.message.contains("--max-memory") == true)
        #expect(lua_gettop(rt.L) == 0)
    }

    @Test func simulatedAllocationFailureInHostCallsIsCaughtInC() throws {
        let rt = try makeRuntime(LuaLimits(maxInstructions: nil, maxMemoryMiB: 64))
        rt.setGlobal("alloc", allocatingFunction)
        rt.control.pointee.failAfter = 3
        var failure: LuaFailure?
        do { try rt.runString("return alloc()", chunkname: "=alloc") } catch { failure = error }
        // the flag is recorded while Swift runs; the heap is under the cap so the script goes on
        #expect(failure == nil || failure?.kind == .memoryLimit)
        #expect(rt.control.pointee.memoryExceeded != 0)
        #expect(lua_gettop(rt.L) == 0)
    }

    @Test func instructionBudgetCannotBeSwallowedByPcall() throws {
        let rt = try makeRuntime(LuaLimits(maxInstructions: 100_000, maxMemoryMiB: nil))
        let code = "for i = 1, 1e9 do pcall(function() while true do end end) end"
        var failure: LuaFailure?
        do { try rt.runString(code, chunkname: "=budget") } catch { failure = error }
        #expect(failure?.kind == .instructionLimit)
        #expect(failure?.message.contains("--max-instructions") == true)
    }

    @Test func coroutinesInheritTheInstructionBudget() throws {
        let rt = try makeRuntime(LuaLimits(maxInstructions: 100_000, maxMemoryMiB: nil))
        let code = "local co = coroutine.wrap(function() while true do end end) co()"
        var failure: LuaFailure?
        do { try rt.runString(code, chunkname: "=co") } catch { failure = error }
        #expect(failure?.kind == .instructionLimit)
    }

    @Test func sandboxHidesUnsafeLibraries() throws {
        let rt = try makeRuntime()
        let code = """
            assert(io == nil and package == nil and dofile == nil and loadfile == nil)
            assert(debug.getinfo == nil and debug.sethook == nil and debug.getregistry == nil and debug.traceback)
            assert(os.exit == nil and os.execute == nil and os.getenv == nil and os.remove == nil)
            assert(os.time and os.clock and os.date and os.difftime)
            assert(string.dump == nil and ("").dump == nil)
            assert(load("return 1")() == 1)
            local f, err = load(string.char(27) .. "Lua")
            assert(f == nil and err:find("binary"))
            """
        try rt.runString(code, chunkname: "=sandbox")
    }

    @Test func closuresThatCaptureTheirNodeDoNotKeepTheTreeAlive() throws {
        let rt = try makeRuntime()
        let build = """
            local E = Event "E"
            for i = 1, 2000 do
              local leaf = View "Leaf"
              local root = View "Root" { View "Mid" { leaf } }
              leaf:handleEvent(function(e, ctx) return leaf, root end)
              root:handleEvent(E, function() return root end)
              leaf:trigger(E {})
            end
            """
        try rt.runString("collectgarbage()", chunkname: "=gc")
        luashim_gc_collect(rt.L)
        let before = rt.memoryInUse
        try rt.runString(build, chunkname: "=build")
        responderReset(rt)
        luashim_gc_collect(rt.L)
        luashim_gc_collect(rt.L)
        #expect(rt.memoryInUse - before < 64 * 1024)
    }

    func responderReset(_ rt: LuaRuntime) {
        try? rt.runString("responder.reset()", chunkname: "=reset")
    }
}
