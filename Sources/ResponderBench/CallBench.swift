import CLua
import CLuaShim
import ResponderKit
import ResponderLua

/// The Swift function measured against `cAdd`: same work, through the trampoline.
let swiftAdd: LuaSwiftFunction = { L in
    var ok1: Int32 = 0, ok2: Int32 = 0
    let a = lua_tointegerx(L, 1, &ok1), b = lua_tointegerx(L, 2, &ok2)
    if ok1 == 0 || ok2 == 0 { return LuaRuntime.of(L).raise("swiftAdd: expected two integers") }
    lua_pushinteger(L, a &+ b)
    return 1
}

/// Times `for i = 1, n do s = f(s, i) end` with `f` pushed by `push`, in ns per call.
func timeCalls(_ rt: LuaRuntime, _ n: Int, push: (OpaquePointer) -> Void) -> Double {
    let L = rt.L
    try? rt.runString("return function(f, n) local s = 0 for i = 1, n do s = f(s, i) end return s end",
                      chunkname: "=loop", results: 1)
    let loop = luaL_ref(L, luashim_registryindex())
    defer { luaL_unref(L, luashim_registryindex(), loop) }
    let ns = median(5) {
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(loop))
        push(L)
        lua_pushinteger(L, lua_Integer(n))
        let start = nowNanos()
        _ = rt.call(2, 0)
        return nowNanos() - start
    }
    return ns / Double(n)
}

/// Issue 2: Lua→Swift (trampoline) vs Lua→C, state creation, `responder run` start-up.
func foundationBench(responder: String) -> [Row] {
    var rows: [Row] = []
    let n = 5_000_000
    guard let rt = try? LuaRuntime(limits: .unlimited) else { return rows }
    // interleave to share noise
    var cTimes: [Double] = [], swiftTimes: [Double] = []
    for _ in 0..<3 {
        cTimes.append(timeCalls(rt, n) { luashim_push_c_add($0) })
        swiftTimes.append(timeCalls(rt, n) { luashim_push_swift_function($0, swiftAdd) })
    }
    let c = cTimes.sorted()[1], s = swiftTimes.sorted()[1]
    rows.append(Row(name: "Lua→Swift call (trampoline) vs Lua→C call", ours: "\(fmt(s, 1)) ns",
                    reference: "\(fmt(c, 1)) ns", ratio: s / c, goal: "≤ 1.3×"))

    // state creation
    let reps = 2000
    let bare = median(5) {
        let start = nowNanos()
        for _ in 0..<reps {
            let L = luaL_newstate()
            luaL_openlibs(L)
            lua_close(L)
        }
        return (nowNanos() - start) / UInt64(reps)
    }
    let ours = median(5) {
        let start = nowNanos()
        for _ in 0..<reps {
            _ = try? Scenario.makeRuntime(ScenarioOptions(limits: .defaults))
        }
        return (nowNanos() - start) / UInt64(reps)
    }
    let sandboxOnly = median(5) {
        let start = nowNanos()
        for _ in 0..<reps { _ = try? LuaRuntime(limits: .defaults) }
        return (nowNanos() - start) / UInt64(reps)
    }
    rows.append(Row(name: "sandboxed state without the module vs luaL_newstate+openlibs",
                    ours: "\(fmt(sandboxOnly / 1000, 1)) µs", reference: "\(fmt(bare / 1000, 1)) µs",
                    ratio: sandboxOnly / bare, goal: "—"))
    rows.append(Row(name: "sandboxed state + responder module vs luaL_newstate+openlibs",
                    ours: "\(fmt(ours / 1000, 1)) µs", reference: "\(fmt(bare / 1000, 1)) µs",
                    ratio: ours / bare, goal: "≤ 2×"))

    // responder run of an empty file vs lua5.4
    let empty = "/tmp/responder-bench-empty.lua"
    FileText.write("", to: empty)
    if onPath("lua5.4") {
        var ourRuns: [UInt64] = [], luaRuns: [UInt64] = []
        for _ in 0..<30 {
            if let t = timeCommand([responder, "run", empty]) { ourRuns.append(t) }
            if let t = timeCommand(["lua5.4", empty]) { luaRuns.append(t) }
        }
        ourRuns.sort(); luaRuns.sort()
        if !ourRuns.isEmpty && !luaRuns.isEmpty {
            let o = Double(ourRuns[ourRuns.count / 2]), l = Double(luaRuns[luaRuns.count / 2])
            rows.append(Row(name: "`responder run empty.lua` vs `lua5.4 empty.lua` (wall)",
                            ours: "\(fmt(o / 1e6)) ms", reference: "\(fmt(l / 1e6)) ms",
                            ratio: o / l, goal: "≤ 3×"))
        }
    } else {
        rows.append(Row(name: "`responder run` vs `lua5.4` (lua5.4 not installed)", ours: "", reference: "", ratio: nil, goal: "≤ 3×"))
    }
    return rows
}
