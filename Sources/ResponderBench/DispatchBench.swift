import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

/// A good pure-Lua implementation of the same rules: path fixed first, one ordered list per
/// node snapshotted on arrival, typed filters matching subtypes, receive/handle
/// (`Lua/pure_dispatch.lua`, which returns its functions).
let pureLuaImplementation = String(decoding: PackageResources.pure_dispatch_lua, as: UTF8.self)

/// Builds the workload (chain of depth D, a non-matching typed receiver on every 10th node, or
/// `perNode` on every node, a typed handler at the root) and returns a runner `f(n)`.
func workload(pure: Bool, depth: Int, perNode: Int?) -> String {
    let prefix =
        pure
        ? "local R = (function() \(pureLuaImplementation) end)()\nlocal Event, View, trigger = R.Event, R.View, R.trigger\nlocal function add(p, c) R.add(p, c) end\nlocal function recv(n, T, f) R.receiveEvent(n, T, f) end\nlocal function handle(n, T, f) R.handleEvent(n, T, f) end\nlocal function fire(n, e) return trigger(n, e) end\n"
        : "local function add(p, c) p:add(c) end\nlocal function recv(n, T, f) n:receiveEvent(T, f) end\nlocal function handle(n, T, f) n:handleEvent(T, f) end\nlocal function fire(n, e) return n:trigger(e) end\n"
    let responders =
        perNode.map { "for k = 1, \($0) do recv(n, Other, function() return true end) end" }
        ?? "if i % 10 == 0 then recv(n, Other, function() return true end) end"
    return prefix + """
        local E, Other = Event "E", Event "Other"
        local root = View "Root"
        handle(root, E, function(e) end)
        local cur = root
        for i = 2, \(depth) do
          local n = View "N"
          \(responders)
          add(cur, n)
          cur = n
        end
        local leaf = cur
        return function(count) for i = 1, count do fire(leaf, E { item = i }) end end
        """
}

/// The limits `responder run` has by default (sampled budget with the timer running, memory cap,
/// so the engine's memory accounting is on), with a budget no benchmark exhausts.
let benchLimits = LuaLimits(
    maxInstructions: 1_000_000_000_000, maxMemoryMiB: LuaLimits.defaults.maxMemoryMiB,
    exactInstructions: false)

/// One workload in its own sandboxed state, ready to be timed.
final class DispatchRig {
    let runtime: LuaRuntime
    let function: Int32
    let count: Int

    init?(pure: Bool, depth: Int, perNode: Int?, count: Int) {
        guard let rt = try? Scenario.makeRuntime(ScenarioOptions(limits: benchLimits, safety: "disabled")) else {
            return nil
        }
        do {
            try rt.runString(workload(pure: pure, depth: depth, perNode: perNode), chunkname: "=workload", results: 1)
        } catch {
            print("workload failed: \(error)")
            return nil
        }
        runtime = rt
        function = luaL_ref(rt.L, luashim_registryindex())
        self.count = count
    }

    /// One sample: ns per dispatch over `count` dispatches.
    func sample() -> Double {
        let L = runtime.L
        runtime.resetLimits()
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(function))
        lua_pushinteger(L, lua_Integer(count))
        let start = nowNanos()
        if let f = runtime.call(1, 0) {
            print("run failed: \(f)")
            return .nan
        }
        return Double(nowNanos() - start) / Double(count)
    }
}

/// Engine and pure-Lua reference on the same workload, samples interleaved (engine, reference,
/// engine, …) so both see the same machine load; about `millis` ms per sample.
func dispatchPair(depth: Int, perNode: Int? = nil, samples: Int, millis: Double = 40) -> (ours: Samples, lua: Samples) {
    // size each side's sample from a short trial run
    func rig(_ pure: Bool) -> DispatchRig? {
        guard let trial = DispatchRig(pure: pure, depth: depth, perNode: perNode, count: 200) else { return nil }
        _ = trial.sample()
        let ns = trial.sample()
        let count = Int(max(200, min(2_000_000, millis * 1e6 / max(ns, 1))))
        return DispatchRig(pure: pure, depth: depth, perNode: perNode, count: count)
    }
    guard let ours = rig(false), let lua = rig(true) else { return (Samples(), Samples()) }
    _ = ours.sample()
    _ = lua.sample()  // warm
    var a = Samples()
    var b = Samples()
    for _ in 0..<samples {
        a.add(ours.sample())
        b.add(lua.sample())
    }
    return (a, b)
}

/// Issue 3: the depth curve, responders per node, the engine alone.
func dispatchBench(quick: Bool) -> [Row] {
    var rows: [Row] = []
    let n = quick ? 3 : 5
    for depth in [10, 1000] {
        let (ours, lua) = dispatchPair(depth: depth, samples: n, millis: 25)
        rows.append(
            Row(
                name: "dispatch, depth \(depth) (engine via Lua vs pure Lua)",
                ours: ours.text(1000, "µs"), reference: lua.text(1000, "µs"),
                ratio: ours.median / lua.median, goal: "—"))
    }
    for perNode in [0, 1, 4, 16] {
        let (ours, lua) = dispatchPair(depth: 100, perNode: perNode, samples: n, millis: 25)
        rows.append(
            Row(
                name: "dispatch, depth 100, \(perNode) non-matching responders per node",
                ours: ours.text(1000, "µs"), reference: lua.text(1000, "µs"),
                ratio: ours.median / lua.median, goal: "—"))
    }
    // the engine alone
    let hops = engineHopsPerSecond(depth: 100)
    rows.append(
        Row(
            name: "engine alone (Swift, no Lua), depth 100", ours: "\(fmt(hops / 1e6, 1)) M hops/s",
            reference: "", ratio: nil, goal: "≥ 50 M hops/s", verdict: hops >= 50e6 ? "met" : "MISSED"))
    let alternating = engineHopsPerSecond(depth: 100, alternateOrigins: true)
    rows.append(
        Row(
            name: "engine alone, depth 100, two origins alternating (no path reuse)",
            ours: "\(fmt(alternating / 1e6, 1)) M hops/s", reference: "", ratio: nil, goal: "≥ 50 M hops/s",
            verdict: alternating >= 50e6 ? "met" : "MISSED"))
    return rows
}

/// Swift-only dispatch: node hops per second.
///
/// With `alternateOrigins`, dispatches alternate between the leaf and its parent, so the engine
/// cannot reuse the previous dispatch's path (it does when the tree is unchanged).
func engineHopsPerSecond(depth: Int, alternateOrigins: Bool = false) -> Double {
    let world = World()
    world.defaultSafetyLevel = .disabled
    let e = ValueType(name: "E", kind: .event)
    let other = ValueType(name: "Other", kind: .event)
    let root = Node(name: "Root")
    root.addResponder(ResponderEntry(kind: .handleEvent, filter: e, body: { _, _ in .handled }))
    var cur = root
    for i in 2...depth {
        let n = Node(name: "N")
        if i % 10 == 0 {
            n.addResponder(ResponderEntry(kind: .receiveEvent, filter: other, body: { _, _ in .handled }))
        }
        try? cur.add(n)
        cur = n
    }
    let leaf = cur
    let count = 200_000
    let ns = median(5) {
        let start = nowNanos()
        if alternateOrigins, let parent = leaf.parent {
            for _ in 0..<(count / 2) {
                _ = try? world.trigger(Value(type: e), from: leaf)
                _ = try? world.trigger(Value(type: e), from: parent)
            }
        } else {
            for _ in 0..<count {
                _ = try? world.trigger(Value(type: e), from: leaf)
            }
        }
        return nowNanos() - start
    }
    let hopsPerRound = alternateOrigins ? Double(2 * depth - 1) / 2 : Double(depth)
    return hopsPerRound * Double(count) / (ns / 1e9)
}
