import ResponderEngine
import ResponderKit
import ResponderLua
import Testing

@testable import ResponderGraph

/// `TreeGraph`: the snapshot `responder graph` draws, and its text and dot renderers.
@Suite("Tree graph")
struct TreeGraphTests {
    func graph(_ script: String) throws -> TreeGraph {
        let runtime = try Scenario.makeRuntime(ScenarioOptions(limits: .unlimited))
        try runtime.runString(script, chunkname: "=graph")
        return try TreeGraph.capture(world: runtime.world)
    }

    static let grid = """
        local ItemSelected = Event "ItemSelected"
        local grid = View "Grid" {}
        for _, name in ipairs { "a", "b" } do
          local item = View "Item" { id = name }
          item:onTapGesture { trigger = ItemSelected { item = name } }
          grid:add(item)
        end
        grid:triggers(ItemSelected)
        local screen = View "Screen" { View "Title" {}, grid }
        screen:receiveEvent(function() return false end)
        screen:handleEvent(ItemSelected, function() end)
        mount(screen)
        tap(screen:find("Item#b"))
        """

    @Test func textShowsTheTreeTheEntriesAndThePath() throws {
        let text = try graph(Self.grid).text()
        #expect(
            text == """
                Screen  <- path
                |   #1 receiveEvent               <- step 2: passed
                |   #2 handleEvent(ItemSelected)  <- step 3: handled
                |-- Title
                `-- Grid  <- path
                    |   #1 triggers(ItemSelected)  <- step 1: declared
                    |-- Item#a
                    |       onTapGesture: trigger ItemSelected{item="a"}
                    `-- Item#b  <- origin
                            onTapGesture: trigger ItemSelected{item="b"}

                last dispatch: event ItemSelected{item="b"} from Item#b
                path: Item#b -> Grid -> Screen
                  1  Grid    #1 triggers(ItemSelected)     declared
                  2  Screen  #1 receiveEvent               passed
                  3  Screen  #2 handleEvent(ItemSelected)  handled
                legend: <- step N   the entry that took step N of the list above
                        <- origin   where the value started; <- path: the nodes it passed (in order on path:)

                """)
        // SPEC §3: "`text` an ASCII tree" (user text aside, every character is ASCII)
        #expect(text.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test func snapshotRecordsStructurePathPositionsAndSteps() throws {
        let g = try graph(Self.grid)
        #expect(g.isMounted)
        #expect(g.nodes.map(\.label) == ["Screen", "Title", "Grid", "Item#a", "Item#b"])
        #expect(g.nodes[0].children == [1, 2])
        #expect(g.nodes[2].children == [3, 4])
        #expect(g.nodes[4].parent == 2)
        #expect(g.nodes.map(\.pathPosition) == [3, nil, 2, nil, 1])
        #expect(g.dispatch?.path == ["Item#b", "Grid", "Screen"])
        #expect(g.dispatch?.steps.map(\.decision) == ["declared", "passed", "handled"])
        #expect(g.nodes[0].lines.map(\.text) == ["#1 receiveEvent", "#2 handleEvent(ItemSelected)"])
        #expect(g.nodes[0].lines[1].steps.map(\.number) == [3])
    }

    @Test func dotHighlightsThePathWithStepNumbers() throws {
        let dot = try graph(Self.grid).dot()
        #expect(dot.hasPrefix("digraph responders {\n"))
        #expect(dot.hasSuffix("}\n"))
        // Path nodes are bold and filled; the others are plain.
        #expect(
            dot.contains(
                #"n0 [label="Screen  ◀ path\l#1 receiveEvent  ◀ step 2: passed\l#2 handleEvent(ItemSelected)  ◀ step 3: handled\l", color="red", penwidth=2, style="filled,bold""#
            ))
        #expect(dot.contains(#"n1 [label="Title\l"];"#))
        #expect(
            dot.contains(
                #"n4 [label="Item#b  ◀ origin\lonTapGesture: trigger ItemSelected{item=\"b\"}\l", color="red""#))
        // Path edges point the way the value travelled (child → parent), with no label on the
        // line: the steps carry the only numbers (issue 10: one numbering scheme).
        #expect(dot.contains(#"n2 -> n4 [dir=back, color="red", penwidth=2.5];"#))
        #expect(dot.contains(#"n0 -> n2 [dir=back, color="red", penwidth=2.5];"#))
        #expect(dot.contains("  n0 -> n1;\n"))
        #expect(dot.contains("  n2 -> n3;\n"))
        #expect(
            dot.contains(
                #"label="last dispatch: event ItemSelected{item=\"b\"} from Item#b\lpath: Item#b → Grid → Screen\l"#))
        // The caption lists the steps under their numbers, then the legend.
        #expect(dot.contains(#"\l  3  Screen  #2 handleEvent(ItemSelected)  handled\llegend: ◀ step N "#))
    }

    @Test func everyPictureExplainsItsMarksInALegend() throws {
        let g = try graph(Self.grid)
        #expect(
            g.text().hasSuffix(
                """
                  3  Screen  #2 handleEvent(ItemSelected)  handled
                legend: <- step N   the entry that took step N of the list above
                        <- origin   where the value started; <- path: the nodes it passed (in order on path:)

                """))
        #expect(g.dot().contains("legend: ◀ step N"))
    }

    @Test func manyLeafChildrenAreLaidOutInRowsThatFitAReadmeWidth() throws {
        let g = try graph(
            """
            local E = Event "Picked"
            local grid = View "Grid" {}
            for i = 1, 7 do
              local item = View "Item" { id = "item" .. i }
              item:onTapGesture { trigger = E { item = ("item name %d"):format(i) } }
              grid:add(item)
            end
            mount(grid)
            """)
        let dot = g.dot()
        // each box is about 60 characters wide: two to a row, each column a group
        #expect(dot.contains("  { rank=same; n1; n2; }\n  { rank=same; n3; n4; }\n"))
        #expect(dot.contains("  { rank=same; n7; }\n"))
        #expect(dot.contains("  n1 -> n3 [style=invis];\n  n2 -> n4 [style=invis];\n"))
        #expect(dot.contains(#"n3 [group="p0c0", label="Item#item3"#))
        // the tree edges are all still drawn
        for child in 1...7 { #expect(dot.contains("  n0 -> n\(child);\n")) }
        // a few short children stay on one row
        let small = try graph(
            """
            local root = View "Root" { View "A" {}, View "B" {}, View "C" {} }
            mount(root)
            """)
        #expect(!small.dot().contains("rank=same"))
    }

    @Test func dotEscapesQuotesBackslashesAndNewlines() throws {
        #expect(TreeGraph.dotEscape(#"a"b\c"# + "\nd\r\u{1}") == #"a\"b\\c\ld "#)
        let g = try graph(
            """
            local E = Event 'Say"hi\\\\'
            local root = View 'Ro"ot' { id = 'x\\\\y', View "Two\\nLines" { id = "c" } }
            root:handleEvent(E, function() end)
            mount(root)
            root:find("#c"):trigger(E {})
            """)
        let dot = g.dot()
        #expect(dot.contains(#"n0 [label="Ro\"ot#x\\y  ◀ path\l#1 handleEvent(Say\"hi\\)  ◀ step 1: handled\l""#))
        #expect(dot.contains(#"n1 [label="Two\lLines#c  ◀ origin\l""#))
        // Every quote inside a label is escaped: unescaped quotes come in pairs per attribute.
        for line in dot.split(separator: "\n") {
            var unescaped = 0
            var backslashes = 0
            for ch in line {
                if ch == "\"" && backslashes % 2 == 0 { unescaped += 1 }
                backslashes = ch == "\\" ? backslashes + 1 : 0
            }
            #expect(unescaped % 2 == 0, "odd quotes in: \(line)")
        }
        // The text tree keeps one node per line.
        #expect(g.text().contains("`-- Two\\nLines#c  <- origin\n"))
    }

    @Test func unhandledValuesEndPastTheRoot() throws {
        let g = try graph(
            """
            local Lost = Event "Lost"
            local root = View "Root" { View "Leaf" {} }
            root:safetyLevel("disabled")
            root:receiveEvent(function() return false end)
            mount(root)
            root:find("Leaf"):trigger(Lost {})
            """)
        #expect(
            g.text() == """
                Root  <- path
                |   #1 receiveEvent  <- step 1: passed
                |   (past the root)  <- step 2: unhandled
                `-- Leaf  <- origin

                last dispatch: event Lost{} from Leaf
                path: Leaf -> Root
                  1  Root  #1 receiveEvent  passed
                  2  Root                   unhandled
                legend: <- step N   the entry that took step N of the list above
                        <- origin   where the value started; <- path: the nodes it passed (in order on path:)

                """)
    }

    @Test func publicationsMarkTheSubscribersTheyReached() throws {
        let g = try graph(
            """
            local Shaken = Event "Shaken"
            local app = View "App" { View "Feed" { id = "f" }, View "Other" {} }
            local pub = app:publisher(Shaken, { destination = "allLevels" })
            app:find("#f"):subscribe(Shaken, function() end)
            mount(app)
            pub:publish(Shaken {})
            """)
        let text = g.text()
        #expect(text.contains("App  <- origin\n"))
        #expect(text.contains("|   publisher(Shaken, allLevels)\n"))
        #expect(text.contains("subscribe(Shaken)  <- step 1: handled\n"))
        #expect(
            g.dot().contains(
                #"n1 [label="Feed#f\lsubscribe(Shaken)  ◀ step 1: handled\l", color="red", style="filled""#))
    }

    @Test func stepsOfRemovedEntriesKeepALineOfTheirOwn() throws {
        let g = try graph(
            """
            local E = Event "E"
            local root = View "Root" {}
            root:handleEvent(E, function() end, { once = true, id = "first" })
            mount(root)
            root:trigger(E {})
            """)
        #expect(g.text().contains("#1 handleEvent(E) (removed since)  <- step 1: handled\n"))
    }

    /// A step marks the entry that took it, found by identity, when earlier entries of its list
    /// were removed (a `once` entry that ran, a `removeResponder` during the dispatch): by
    /// position, the mark went to a made-up "(removed since)" line (found by an acceptance probe).
    @Test func stepsMarkTheirEntryAfterTheListShifted() throws {
        let once = try graph(
            """
            local A = Event "A"
            local n = View "N"
            local root = View "Root" { n }
            n:receiveEvent(function() return false end, { once = true })
            n:handleEvent(A, function() end)
            mount(root)
            n:trigger(A())
            """)
        let text = once.text()
        #expect(text.contains("        #1 handleEvent(A)                <- step 2: handled\n"), "\(text)")
        #expect(text.contains("        #1 receiveEvent (removed since)  <- step 1: passed\n"), "\(text)")
        #expect(!text.contains("handleEvent(A) (removed since)"), "\(text)")
        let removed = try graph(
            """
            local A = Event "A"
            local n = View "N"
            n:receiveEvent(function() n:removeResponder("x") return false end)
            n:receiveEvent(function() return false end, { id = "x" })
            n:handleEvent(function() end)
            mount(View "Root" { n })
            n:trigger(A())
            """)
        let text2 = removed.text()
        #expect(text2.contains("        #1 receiveEvent  <- step 1: passed\n"), "\(text2)")
        #expect(text2.contains("        #2 handleEvent   <- step 2: handled\n"), "\(text2)")
        #expect(!text2.contains("removed since"), "\(text2)")
    }

    @Test func withoutAMountedTreeTheLastDispatchTreeIsUsed() throws {
        let g = try graph(
            """
            local E = Event "E"
            local root = View "Root" { View "Leaf" {} }
            root:handleEvent(E, function() end)
            root:find("Leaf"):trigger(E {})
            """)
        #expect(!g.isMounted)
        #expect(g.text().hasPrefix("nothing is mounted; showing the tree of the last dispatch\nRoot  <- path\n"))
        #expect(g.dot().contains("nothing is mounted; the tree of the last dispatch\\l"))
    }

    @Test func nothingMountedAndNoDispatchIsAnError() throws {
        #expect(throws: TreeGraphError.nothingMounted) {
            _ = try graph("local x = View 'Alone' {}")
        }
        #expect(TreeGraphError.nothingMounted.message == "nothing is mounted: call mount(root) in the script")
    }

    @Test func aTreeWithoutADispatchSaysSo() throws {
        let g = try graph("mount(View 'Root' { View 'Leaf' {} })")
        #expect(g.dispatch == nil)
        #expect(g.text() == "Root\n`-- Leaf\n\nlast dispatch: none\n")
        #expect(g.dot().contains(#"label="last dispatch: none\l""#))
        #expect(!g.dot().contains("color=\"red\""))
    }

    @Test func engineTreesRenderWithoutLua() throws {
        let type = ValueType(name: "Ping", kind: .event)
        let root = Node(name: "Root", id: "r")
        let child = Node(name: "Child")
        try root.add(child)
        root.addResponder(ResponderEntry(kind: .transformEvent, filter: type) { value, _ in .value(value) })
        root.addResponder(ResponderEntry.declaration(.triggers, [type, type]))
        let g = TreeGraph(root: root, trace: nil)
        #expect(
            g.text()
                == "Root#r\n|   #1 transformEvent(Ping)\n|   #2 triggers(Ping, Ping)\n`-- Child\n\nlast dispatch: none\n"
        )
    }
}
