import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

/// A good pure-Lua implementation of the same rules: path fixed first, one ordered list per
/// node snapshotted on arrival, typed filters matching subtypes, receive/handle.
let pureLuaImplementation = """
local function isa(t, f) while t do if t == f then return true end t = t.parent end return false end
local EventMT = {}
local function Event(name, parent) local T = { name = name, parent = parent }
  return setmetatable(T, { __call = function(_, fields) fields = fields or {}; fields.type = T; return setmetatable(fields, EventMT) end }) end
local function View(name) return { name = name, responders = {} } end
local function add(parent, child) child.parent = parent end
local function receiveEvent(node, T, fn) local l = node.responders; l[#l + 1] = { kind = "receive", filter = T, fn = fn } end
local function handleEvent(node, T, fn) local l = node.responders; l[#l + 1] = { kind = "handle", filter = T, fn = fn } end
local function trigger(node, ev)
  local path, n = {}, 0
  local cur = node
  while cur do n = n + 1; path[n] = cur; cur = cur.parent end
  local et = ev.type
  for i = 1, n do
    local list = path[i].responders
    local m = #list
    if m > 0 then
      local snap = table.move(list, 1, m, 1, {})
      for j = 1, m do
        local r = snap[j]
        if r.filter == nil or isa(et, r.filter) then
          if r.kind == "receive" then
            if r.fn(ev) then return true, path[i] end
          else
            r.fn(ev)
            return true, path[i]
          end
        end
      end
    end
  end
  return false
end
return { Event = Event, View = View, add = add, receiveEvent = receiveEvent, handleEvent = handleEvent, trigger = trigger }
"""

/// Builds the workload (chain of depth D, a non-matching typed receiver on every 10th node, or
/// `perNode` on every node, a typed handler at the root) and returns a runner `f(n)`.
func workload(pure: Bool, depth: Int, perNode: Int?) -> String {
    let prefix = pure
        ? "local R = (function() \(pureLuaImplementation) end)()\nlocal Event, View, trigger = R.Event, R.View, R.trigger\nlocal function add(p, c) R.add(p, c) end\nlocal function recv(n, T, f) R.receiveEvent(n, T, f) end\nlocal function handle(n, T, f) R.handleEvent(n, T, f) end\nlocal function fire(n, e) return trigger(n, e) end\n"
        : "local function add(p, c) p:add(c) end\nlocal function recv(n, T, f) n:receiveEvent(T, f) end\nlocal function handle(n, T, f) n:handleEvent(T, f) end\nlocal function fire(n, e) return n:trigger(e) end\n"
    let responders = perNode.map { "for k = 1, \($0) do recv(n, Other, function() return true end) end" }
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

/// ns per dispatch of the workload.
func timeWorkload(pure: Bool, depth: Int, perNode: Int? = nil) -> Double {
    // the CLI's default limits (sampled budget, timer running), as `responder run` has them
    let limits = LuaLimits(maxInstructions: LuaLimits.defaults.maxInstructions, maxMemoryMiB: nil, exactInstructions: false)
    guard let rt = try? Scenario.makeRuntime(ScenarioOptions(limits: limits, safety: "disabled")) else { return .nan }
    let L = rt.L
    do { try rt.runString(workload(pure: pure, depth: depth, perNode: perNode), chunkname: "=workload", results: 1) }
    catch { print("workload failed: \(error)"); return .nan }
    let fn = luaL_ref(L, luashim_registryindex())
    let count = max(200, 2_000_000 / max(depth * (perNode ?? 1), 1))
    return median(5) {
        rt.resetLimits()
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(fn))
        lua_pushinteger(L, lua_Integer(count))
        let start = nowNanos()
        if let f = rt.call(1, 0) { print("run failed: \(f)") }
        return (nowNanos() - start) / UInt64(count)
    }
}

/// Issue 3: engine vs pure Lua, depth growth, responders per node, engine alone.
func dispatchBench() -> [Row] {
    var rows: [Row] = []
    for depth in [1, 10, 100, 1000] {
        let ours = timeWorkload(pure: false, depth: depth)
        let lua = timeWorkload(pure: true, depth: depth)
        let goal = depth == 100 ? "≤ 0.25×" : depth == 1 ? "≤ 1.0×" : "—"
        rows.append(Row(name: "dispatch, depth \(depth) (engine via Lua vs pure Lua)",
                        ours: "\(fmt(ours / 1000, 2)) µs", reference: "\(fmt(lua / 1000, 2)) µs",
                        ratio: ours / lua, goal: goal))
    }
    for perNode in [0, 1, 4, 16] {
        let ours = timeWorkload(pure: false, depth: 100, perNode: perNode)
        let lua = timeWorkload(pure: true, depth: 100, perNode: perNode)
        rows.append(Row(name: "dispatch, depth 100, \(perNode) non-matching responders per node",
                        ours: "\(fmt(ours / 1000, 2)) µs", reference: "\(fmt(lua / 1000, 2)) µs",
                        ratio: ours / lua, goal: "—"))
    }
    // the engine alone
    let hops = engineHopsPerSecond(depth: 100)
    rows.append(Row(name: "engine alone (Swift, no Lua), depth 100", ours: "\(fmt(hops / 1e6, 1)) M hops/s",
                    reference: "", ratio: nil, goal: "≥ 50 M hops/s"))
    let alternating = engineHopsPerSecond(depth: 100, alternateOrigins: true)
    rows.append(Row(name: "engine alone, depth 100, two origins alternating (no path reuse)",
                    ours: "\(fmt(alternating / 1e6, 1)) M hops/s", reference: "", ratio: nil, goal: "≥ 50 M hops/s"))
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
