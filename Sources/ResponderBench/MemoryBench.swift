import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes in use on the C heap (Swift objects live there too).
func heapInUse() -> Int { Int(luashim_heap_in_use()) }

/// Bytes per node for `count` nodes built from Lua: engine nodes (Lua heap + Swift heap) vs
/// plain Lua tables `{ name = …, parent = …, responders = {} }`, same shape (a root with groups
/// of 1000 children), both kept alive by one array.
func memoryPerNode(count: Int) -> (ours: Double, plain: Double) {
    func measure(_ code: String) -> Double {
        guard let rt = try? Scenario.makeRuntime(ScenarioOptions(limits: .unlimited)) else { return .nan }
        try? rt.runString("collectgarbage() collectgarbage()", chunkname: "=gc")
        let luaBefore = rt.memoryInUse
        let heapBefore = heapInUse()
        try? rt.runString(code, chunkname: "=build")
        try? rt.runString("collectgarbage() collectgarbage()", chunkname: "=gc")
        let lua = rt.memoryInUse - luaBefore
        // the Lua heap is itself on the C heap: count the C heap growth once
        let total = max(heapInUse() - heapBefore, lua)
        return Double(total) / Double(count)
    }
    let ours = measure(
        """
        keep = {}
        local root = View "Root"
        local group
        for i = 1, \(count) do
          if i % 1000 == 1 then group = View "Group"; root:add(group) end
          local n = View "Node"
          group:add(n)
          keep[i] = n
        end
        """)
    let plain = measure(
        """
        keep = {}
        local root = { name = "Root", responders = {} }
        local group
        for i = 1, \(count) do
          if i % 1000 == 1 then group = { name = "Group", parent = root, responders = {} } end
          keep[i] = { name = "Node", parent = group, responders = {} }
        end
        """)
    return (ours, plain)
}

/// ``memoryPerNode(count:)`` run `runs` times (both sides each time).
func memoryPerNodeSamples(count: Int, runs: Int) -> (ours: Samples, plain: Samples) {
    var ours = Samples()
    var plain = Samples()
    for _ in 0..<runs {
        let m = memoryPerNode(count: count)
        ours.add(m.ours)
        plain.add(m.plain)
    }
    return (ours, plain)
}

/// Where the bytes of ``memoryPerNode(count:)`` go: the Swift node alone (the heap growth of
/// `count` detached nodes, and the heap growth of `count` nodes built in Swift in groups of
/// 1000, children arrays included), so the Lua side is the rest. `--only memory` prints it.
func memoryBreakdown(count: Int) -> [Row] {
    let m = memoryPerNodeSamples(count: count, runs: 3)
    var loose: [Node] = []
    loose.reserveCapacity(count)
    var before = heapInUse()
    for _ in 0..<count { loose.append(Node(name: "Node")) }
    let block = Double(heapInUse() - before) / Double(count)
    loose = []
    before = heapInUse()
    var keep: [Node] = []
    keep.reserveCapacity(count)
    let root = Node(name: "Root")
    var group = root
    for i in 0..<count {
        if i % 1000 == 0 {
            group = Node(name: "Group")
            try? root.add(group)
        }
        let n = Node(name: "Node")
        try? group.add(n)
        keep.append(n)
    }
    let swiftOnly = Double(heapInUse() - before - count * 8) / Double(count)
    withExtendedLifetime((keep, root)) {}
    return [
        Row(
            name: "memory per node, \(count) nodes built from Lua, vs a plain table node",
            ours: m.ours.text(1, "B", 1), reference: m.plain.text(1, "B", 1), ratio: m.ours.median / m.plain.median,
            goal: "≤ 1.0×"),
        Row(name: "Swift node alone (heap chunk)", ours: "\(fmt(block, 1)) B", reference: "", ratio: nil, goal: ""),
        Row(
            name: "Swift side per node (node + children slot), built in Swift", ours: "\(fmt(swiftOnly, 1)) B",
            reference: "", ratio: nil, goal: ""),
        Row(
            name: "Lua side per node (the rest, keep slot included)", ours: "\(fmt(m.ours.median - swiftOnly, 1)) B",
            reference: "", ratio: nil, goal: ""),
    ]
}
