import ResponderTesting
import Testing

// Work the engine and the bridge do in Swift counts against `--max-instructions` (issue 7
// defect 8): searches, tree walks, dispatch paths, subscriber walks and cause chains are charged
// one unit per node or link visited. Before, 1,000 `find` calls over 100,000 children ran for
// 11 s under a 2,000,000-instruction budget and the script ended with exit 0.

@Suite("engine work is metered")
struct EngineWorkTests {
    typealias H = RunHarness

    static let budget = "2000000"
    static let message = "instruction limit exceeded (2000000 instructions); raise it with --max-instructions N"

    /// Scripts whose Lua part is a few thousand instructions but whose engine work is tens of
    /// millions of node visits (each line says what it repeats).
    static let heavy: [(name: String, line: Int, script: String)] = [
        (
            "find", 3,
            """
            local root = View "Root"
            for i = 1, 100000 do root:add(View "Item") end
            for i = 1, 1000 do root:find("Missing") end
            print("finished")
            """
        ),
        (
            "findAll", 3,
            """
            local root = View "Root"
            for i = 1, 100000 do root:add(View "Item") end
            for i = 1, 1000 do root:findAll("Item") end
            print("finished")
            """
        ),
        (
            "find by id in a deep chain", 4,
            """
            local root = View "Root"
            local leaf = root
            for i = 1, 20000 do local n = View "Link" leaf:add(n) leaf = n end
            leaf:add(View "Target" { id = "t" }) for i = 1, 1000 do root:find("#t") end
            print("finished")
            """
        ),
        (
            "dispatch paths", 5,
            """
            local E = Event "E"
            local root = View "Root" root:receiveEvent(E, function() end)
            local leaf = root
            for i = 1, 20000 do local n = View "Link" leaf:add(n) leaf = n end
            for i = 1, 1000 do leaf:trigger(E {}) end
            print("finished")
            """
        ),
        (
            "mounting and unmounting", 5,
            """
            local big = View "Big"
            for i = 1, 20000 do big:add(View "Item") end
            local a, b = View "A", View "B"
            mount(View "Root" { a, b })
            for i = 1, 1000 do a:add(big) b:add(big) end
            print("finished")
            """
        ),
        (
            "subscriber walks", 5,
            """
            local E = Event "E"
            local root = View "Root"
            local pub = root:publisher(E)
            for i = 1, 20000 do root:add(View "Item") end
            for i = 1, 1000 do pub(E {}) end
            print("finished")
            """
        ),
        (
            "paths", 4,
            """
            local root = View "Root"
            local leaf = root
            for i = 1, 20000 do local n = View "Link" leaf:add(n) leaf = n end
            for i = 1, 1000 do leaf:path() end
            print("finished")
            """
        ),
        (
            "children lists", 3,
            """
            local root = View "Root"
            for i = 1, 100000 do root:add(View "Item") end
            for i = 1, 1000 do local c = root.children end
            print("finished")
            """
        ),
        (
            "cause chains", 2,
            """
            local Er = Error "Er"
            local n = View "N" for i = 1, 5000 do n:catchError(Er, function(e) error(Er { i = i }) end) end
            n:report(Er {})
            print("finished")
            """
        ),
    ]

    @Test(arguments: heavy.map(\.name))
    func engineWorkEndsWithTheInstructionLimit(_ name: String) throws {
        let item = Self.heavy.first { $0.name == name }!
        let (r, dir) = try H.runScript(item.script, name: "work.lua", ["--max-instructions", Self.budget])
        defer { H.remove(dir) }
        #expect(H.exited(r, 3), "\(name): \(H.show(r).prefix(600))")
        #expect(!H.contains(r.stdout, "finished"), "\(name)")
        #expect(H.contains(r.stderr, "work.lua:\(item.line): " + Self.message), "\(name): \(r.stderr.prefix(600))")
    }

    /// The same kinds of work in honest amounts stay far inside the default budget.
    @Test func honestWorkIsNotStopped() throws {
        let script = """
            local E = Event "E"
            local root = View "Root" root:receiveEvent(E, function() end)
            for i = 1, 1000 do root:add(View "Item" { id = "i" .. i }) end
            mount(root)
            local found = 0
            for i = 1, 1000 do
              if root:find("#i" .. i) then found = found + 1 end
              root:findAll("Item")
              root:find("Item#i" .. i):trigger(E {})
            end
            print(found)
            """
        let (r, dir) = try H.runScript(script, name: "honest.lua", ["--max-instructions", "50000000"])
        defer { H.remove(dir) }
        #expect(H.exited(r, 0), "\(H.show(r).prefix(600))")
        #expect(r.stdout == "1000\n")
    }

    /// A search stopped by the limit never hands a partial answer to the script, even when a
    /// pcall catches the limit error (the limit is raised again at once).
    @Test func aStoppedSearchRaisesBeforeTheScriptSeesItsResult() throws {
        let script = """
            local root = View "Root"
            for i = 1, 100000 do root:add(View "Item") end
            root:add(View "Last")
            for i = 1, 1000 do
              local ok, found = pcall(root.find, root, "Last")
              if ok and found == nil then print("partial answer") end
            end
            """
        let (r, dir) = try H.runScript(script, name: "partial.lua", ["--max-instructions", Self.budget])
        defer { H.remove(dir) }
        #expect(H.exited(r, 3), "\(H.show(r).prefix(600))")
        #expect(!H.contains(r.stdout, "partial answer"))
    }
}
