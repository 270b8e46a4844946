import CLua
import CLuaShim
import ResponderKit
import ResponderLua

/// The Swift function measured against `cAdd`: same work, through the trampoline.
let swiftAdd: LuaSwiftFunction = { L in
    var ok1: Int32 = 0
    var ok2: Int32 = 0
    let a = lua_tointegerx(L, 1, &ok1)
    let b = lua_tointegerx(L, 2, &ok2)
    if ok1 == 0 || ok2 == 0 { return LuaRuntime.entered(L).raise("swiftAdd: expected two integers") }
    lua_pushinteger(L, a &+ b)
    return 1
}

/// Times `for i = 1, n do s = f(s, i) end` with `f` pushed by `push`, in ns per call.
func timeCalls(_ rt: LuaRuntime, _ n: Int, push: (OpaquePointer) -> Void) -> Double {
    let L = rt.L
    try? rt.runString(
        "return function(f, n) local s = 0 for i = 1, n do s = f(s, i) end return s end",
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

/// Issue 2: Lua→Swift (trampoline) vs Lua→C, state creation (start-up is in the goals table).
func foundationBench() -> [Row] {
    var rows: [Row] = []
    let n = 5_000_000
    guard let rt = try? LuaRuntime(limits: .unlimited) else { return rows }
    // interleave to share noise
    var cTimes: [Double] = []
    var swiftTimes: [Double] = []
    for _ in 0..<3 {
        cTimes.append(timeCalls(rt, n) { luashim_push_c_add($0) })
        swiftTimes.append(timeCalls(rt, n) { luashim_push_swift_function($0, swiftAdd) })
    }
    let c = cTimes.sorted()[1]
    let s = swiftTimes.sorted()[1]
    rows.append(
        Row(
            name: "Lua→Swift call (trampoline) vs Lua→C call", ours: "\(fmt(s, 1)) ns",
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
    rows.append(
        Row(
            name: "sandboxed state without the module vs luaL_newstate+openlibs",
            ours: "\(fmt(sandboxOnly / 1000, 1)) µs", reference: "\(fmt(bare / 1000, 1)) µs",
            ratio: sandboxOnly / bare, goal: "—"))
    rows.append(
        Row(
            name: "sandboxed state + responder module vs luaL_newstate+openlibs",
            ours: "\(fmt(ours / 1000, 1)) µs", reference: "\(fmt(bare / 1000, 1)) µs",
            ratio: ours / bare, goal: "≤ 2×"))

    return rows
}
