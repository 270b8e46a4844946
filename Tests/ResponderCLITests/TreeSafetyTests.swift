import ResponderLua
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Issue 7 end to end: objects Lua holds stay valid while the state closes (item 1), and deep
// trees work in every command (item 2).

@Suite("tree safety")
struct TreeSafetyTests {
    typealias H = RunHarness

    /// The state closes while nodes with Lua responders, tap actions, subscribers, a stored `ctx`
    /// and a mounted tree are alive, and a `__gc` metamethod dispatches while it closes.
    @Test func stateClosingWithStoredCallbacksAndAGcThatDispatches() throws {
        let script = """
            local P = Event "P"
            root = View "Root" { View "Leaf" }
            root:handleEvent(function(e, ctx) saved = ctx end)
            root:onTapGesture(function() end)
            pub = root:publisher(P)
            root.children[1]:subscribe(P, function() end)
            mount(root)
            setmetatable({}, { __gc = function()
              pcall(function() return root.children[1]:trigger(P()) end)
              pcall(function() tap(root) end)
              pcall(function() pub(P()) end)
              pcall(function() return saved.node.name end)
            end })
            root.children[1]:trigger(P())
            print(saved.node, saved.origin)
            """
        let (r, dir) = try H.runScript(script)
        defer { H.remove(dir) }
        #expect(H.exited(r, 0), "\(H.show(r))")
        #expect(r.stdout == "Root\tLeaf\n")
    }
}
