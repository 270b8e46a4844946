import ResponderLua
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Issue 7 end to end: objects Lua holds stay valid while the state closes (item 1), and deep
// trees work in every command (item 2).

@Suite("tree safety", .serialized)
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

    /// Builds a 1,000,000-deep chain under `root` (global), the leaf `leaf` with id "leaf".
    static let chain = """
        local P = Event "P"
        root = View "Root"
        local n = root
        for i = 1, 1000000 do local c = View "N"; n:add(c); n = c end
        n { id = "leaf" }
        leaf = n
        root:handleEvent(P, function() end)
        assert(leaf:trigger(P()).handled)
        assert(root:find("#leaf") == leaf)
        mount(root)

        """

    @Test func aMillionDeepChainRuns() throws {
        let script =
            Self.chain + """
                print(#leaf:path())
                responder.reset()
                root, leaf = nil, nil
                collectgarbage()
                print("collected")
                """
        let (r, dir) = try H.runScript(script)
        defer { H.remove(dir) }
        #expect(H.exited(r, 0), "\(H.show(r))")
        #expect(r.stdout == "4000009\ncollected\n")
    }

    @Test func aMillionDeepChainInASpecFile() throws {
        let spec =
            "describe('chain', function() it('works', function()\n" + Self.chain
            + "assert.equal(leaf, root:find('#leaf'))\nresponder.reset()\nend) end)\n"
        let dir = try H.folder(["deep_spec.lua": spec])
        defer { H.remove(dir) }
        let r = try H.shell(["test", "deep_spec.lua"], in: dir, prefix: "")
        #expect(H.exited(r, 0), "\(H.show(r))")
        #expect(r.stdout.contains("1 passed, 0 failed"), "\(H.show(r))")
    }

    @Test func aMillionDeepChainInTheGraphIsCapped() throws {
        let dir = try H.folder(["deep.lua": Self.chain + "leaf:trigger(P())\n"])
        defer { H.remove(dir) }
        for format in ["text", "dot"] {
            let r = try H.shell(["graph", "deep.lua", "--format", format], in: dir, prefix: "")
            #expect(H.exited(r, 0), "\(H.show(r))")
            #expect(r.stdout.contains("998001 more nodes not shown (a graph shows at most 2000 nodes"))
            #expect(r.stdout.utf8.count < 2_000_000, "\(format): \(r.stdout.utf8.count) bytes")
        }
        let text = try H.shell(["graph", "deep.lua", "--format", "text"], in: dir, prefix: "").stdout
        #expect(text.contains("[depth 41] N"))
        #expect(text.contains("note: indentation stops at depth 40"))
        #expect(text.contains("... 998001 more ..."))
    }

    @Test func aMillionDeepChainInTheRepl() throws {
        // the REPL runs each line as a chunk of its own: one line, globals only
        let line =
            "root = View 'Root'; n = root; for i = 1, 1000000 do local c = View 'N'; n:add(c); n = c end; "
            + "n { id = 'leaf' }; leaf = n; mount(root)"
        let input =
            line + "\n.tree\nprint(#root:find('#leaf'):path())\nresponder.reset()\nroot, leaf, n = nil\n"
            + "collectgarbage()\nprint('done')\n"
        let r = try ReplHarness.piped(input)
        #expect(r.status == 0, "\(r.errors)")
        #expect(H.contains(r.output, "[depth 41] N"))
        #expect(H.contains(r.output, "… (the tree is larger: .tree shows at most 2000 nodes)"))
        #expect(H.contains(r.output, "4000009\n"))
        #expect(r.output.hasSuffix("done\n"), "\(String(r.output.suffix(200)))")
        #expect(r.output.utf8.count < 1_000_000)
        #expect(!H.contains(r.errors, "error"), "\(r.errors)")
    }

    /// Issue 7 item 11: 300 new snapshots in one file used to rewrite the snapshot file at every
    /// assertion (quadratic: over this budget); they are written once, when the file is done.
    @Test func manySnapshotsAreWrittenOnceAFile() throws {
        let spec = """
            describe("snapshots", function()
              it("writes 300 snapshots", function()
                local lines = {}
                for l = 1, 50 do lines[l] = "line " .. l end
                local text = table.concat(lines, "\\n")
                for i = 1, 300 do assert.snapshot("snap " .. i, text .. " " .. (SUFFIX or i)) end
              end)
            end)
            """
        let dir = try H.folder(["many_spec.lua": spec])
        defer { H.remove(dir) }
        let budget = ["--max-instructions", "10000000"]
        let first = try H.shell(["test", "many_spec.lua"] + budget, in: dir, prefix: "")
        #expect(H.exited(first, 0), "\(H.show(first))")
        let written = H.read(dir + "/__snapshots__/many_spec.snap") ?? ""
        #expect(written.split(separator: "\n").filter { $0.hasPrefix("=== snap ") }.count == 300)
        #expect(H.contains(written, "| line 50 300"))
        // unchanged: passes and leaves the file as it was
        let again = try H.shell(["test", "many_spec.lua"] + budget, in: dir, prefix: "")
        #expect(H.exited(again, 0), "\(H.show(again))")
        #expect(H.read(dir + "/__snapshots__/many_spec.snap") == written)
        // changed and updated: rewritten once with the new text
        try RunHarness.write(Array("SUFFIX = 'x'\n".utf8) + Array(spec.utf8), to: dir + "/many_spec.lua")
        let updated = try H.shell(["test", "many_spec.lua", "--update-snapshots"] + budget, in: dir, prefix: "")
        #expect(H.exited(updated, 0), "\(H.show(updated))")
        let rewritten = H.read(dir + "/__snapshots__/many_spec.snap") ?? ""
        #expect(H.contains(rewritten, "| line 50 x") && !H.contains(rewritten, "| line 50 300"))
    }
}
