import CLuaShim
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
