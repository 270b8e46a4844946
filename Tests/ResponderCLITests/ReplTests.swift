import Testing

#if canImport(Glibc)
    import Glibc
#endif

// `responder repl` end to end: the built binary, fed through a file (piped mode) or driven
// through a pseudo-terminal (prompts, line editing, Ctrl-C, Ctrl-D, completion, history).

// MARK: - Piped mode

@Suite("repl, piped")
struct ReplPipedTests {
    @Test func expressionsPrintTheirValuesAndStatementsPrintNothing() throws {
        let r = try ReplHarness.piped(
            """
            1 + 1
            x = 10
            x * 2
            =x + 1
            "text", nil, 3
            .5
            """)
        #expect(r.output == "2\n20\n11\ntext\tnil\t3\n0.5\n")
        #expect(r.status == 0)
    }

    @Test func noPromptsWhenPiped() throws {
        let r = try ReplHarness.piped("1\nfunction f()\nreturn 2\nend\nf()\n")
        #expect(!r.output.contains("> "))
        #expect(r.output == "1\n2\n")
    }

    @Test func multiLineInputContinuesUntilComplete() throws {
        let r = try ReplHarness.piped(
            """
            function double(a)
              local b = a * 2
              return b
            end
            double(21)
            t = {
              1,
            2 }
            #t
            return 1 +
            2
            s = [[long
            string]]
            s
            """)
        #expect(r.output == "42\n2\n3\nlong\nstring\n")
        #expect(r.errors == "")
    }

    @Test func tablesPrintReadablyWithSortedKeysAndMarkedCycles() throws {
        let r = try ReplHarness.piped(
            """
            { 1, "x", b = 2, a = true, ["key with space"] = 1, [10] = "ten" }
            {}
            local t = { name = "loop" } t.self = t return t
            { nested = { deeper = { deepest = { bottom = { 1 } } } } }
            { f = "q\\"uote\\nline" }
            """)
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines.first == #"{ 1, "x", [10] = "ten", a = true, b = 2, ["key with space"] = 1 }"#)
        #expect(lines.dropFirst(1).first == "{}")
        #expect(lines.dropFirst(2).first == #"{ name = "loop", self = <cycle> }"#)
        #expect(lines.dropFirst(3).first == "{ nested = { deeper = { deepest = { bottom = {...} } } } }")
        #expect(lines.dropFirst(4).first == #"{ f = "q\"uote\nline" }"#)
    }

    /// The kit's tasks, timers and handles protect their metatables: they print by their
    /// `__tostring`, not as `{}` (found by an acceptance probe); a locked table without one is
    /// still shown as a table.
    @Test func objectsWithProtectedMetatablesPrintByTheirText() throws {
        let r = try ReplHarness.piped(
            """
            task(function() sleep(1) end)
            every(1, function() end)
            Button "B" { action = function() end }.on.tap(function() end)
            setmetatable({ a = 1 }, { __metatable = false })
            """)
        let lines = r.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(r)")
        #expect(lines.first?.hasPrefix("Task#") == true, "\(r)")
        #expect(lines.dropFirst(1).first == "Timer(every 1s)", "\(r)")
        #expect(lines.dropFirst(2).first == "Handle(on.tap)", "\(r)")
        #expect(lines.dropFirst(3).first == "{ a = 1 }", "\(r)")
    }
    @Test func dotLoadSkipsAShebangLineAsRunDoes() throws {
        // issue 14, item 7: executable scenario scripts load in the REPL too
        let dir = try ReplHarness.temporaryDirectory()
        try ReplHarness.write(dir + "/exe.lua", "#!/usr/bin/env responder run\nloaded = 41\n")
        let r = try ReplHarness.piped(".load \(dir)/exe.lua\nloaded + 1\n")
        #expect(r.errors == "", "\(r.errors)")
        #expect(r.output == "42\n")
    }

    @Test func dotLoadRefusesWhatIsNotARegularFile() throws {
        // a device was read without end outside every limit, a FIFO without writer waited for
        let dir = try ReplHarness.temporaryDirectory()
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        let r = try ReplHarness.piped(".load /dev/zero\n.load \(dir)/fifo\nprint('alive')\n")
        #expect(r.output == "alive\n")
        #expect(
            r.errors.split(separator: "\n").filter { $0.hasSuffix("(not a regular file)") }.count == 2, "\(r.errors)")
    }

    @Test func aMegabyteLineIsReadInLinearTime() throws {
        // the line reader searched the whole pending line again after every chunk
        let r = try ReplHarness.piped(
            "--" + String(repeating: "a", count: 1_000_000) + "\nprint(1)\n", arguments: ["--timeout", "20"])
        #expect(r.output == "1\n", "\(r.errors)")
    }

    @Test func typesConstructorsAndValuesPrintAsWhatTheyAre() throws {
        // issue 10: `View`, `Event type Greeted`, values with their nested tables
        let r = try ReplHarness.piped(
            """
            View
            Greeted = Event "Greeted"
            Greeted
            AlertableError "LoginFailed"
            Error "Failed"
            mount
            Greeted { name = "x", list = { 1, 2, { a = 1 } } }
            { Greeted {}, Button }
            """)
        #expect(
            r.output == """
                View
                Event type Greeted
                AlertableError type LoginFailed
                Error type Failed
                function mount
                Greeted{list={1, 2, {a=1}}, name="x"}
                { Greeted{}, Button }

                """)
    }

    @Test func dotTreeShowsDeclaredTypesAsGraphDoes() throws {
        let r = try ReplHarness.piped(
            """
            A = Event "A"; B = Event "B"
            leaf = View "Leaf" {}; leaf:triggers(A, B)
            root = View "Root" { leaf }; root:handleEvent(A, function() end, { id = "h" }); mount(root)
            .tree
            """)
        #expect(r.output.contains("Root  [handleEvent(A) id=h]\n  Leaf  [triggers(A, B)]\n"), "\(r.output)")
    }

    @Test func longArraysFillLinesInsteadOfOneItemPerLine() throws {
        let r = try ReplHarness.piped("local t = {} for i = 1, 30 do t[i] = i end return t\n")
        #expect(
            r.output == """
                {
                  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                  23, 24, 25, 26, 27, 28, 29, 30
                }

                """)
    }

    @Test func errorsArePrintedAndNeverEndTheSession() throws {
        let r = try ReplHarness.piped(
            """
            error("boom")
            1 +* 2
            nosuch.field = 1
            error({})
            local function inner() error("deep") end inner()
            "still here"
            """)
        #expect(r.status == 0)
        #expect(r.output.hasSuffix("still here\n"))
        #expect(r.errors.contains("error: stdin:1: boom\n"))
        // as lua.c: the statement form's message is reported (`return 1 +* 2` failed first)
        #expect(r.errors.contains("error: stdin:1: unexpected symbol near '1'\n"))
        #expect(r.errors.contains("error: stdin:1: attempt to index a nil value (global 'nosuch')\n"))
        #expect(r.errors.contains("error: stdin:1: (error object is a table value)\n"))
        #expect(r.errors.contains("error: stdin:1: deep\nstack traceback:\n\tstdin:1: in local 'inner'"))
    }

    @Test func errorsInterleaveWithOutputInOrder() throws {
        let r = try ReplHarness.piped("print('a')\nerror('b')\nprint('c')\n", mergeStreams: true)
        // (the traceback as lua5.4 -i prints it, the REPL's own frames left out)
        #expect(r.output == "a\nerror: stdin:1: b\nstack traceback:\n\tstdin:1: in main chunk\nc\n")
    }

    @Test func eachEntryGetsTheInstructionBudget() throws {
        let r = try ReplHarness.piped(
            """
            while true do end
            for i = 1, 50000 do end
            "ok"
            """, arguments: ["--max-instructions", "100000"])
        #expect(r.errors.contains("instruction limit exceeded (100000 instructions)"))
        #expect(r.output == "ok\n")
        #expect(r.status == 0)
    }

    @Test func theSessionGoesOnAfterAMemoryLimitOnceTheMemoryIsFreed() throws {
        let r = try ReplHarness.piped(
            """
            t = {} for i = 1, 1e7 do t[i] = { i } end
            t = nil
            "after t"
            keep = {} local E = Event "E" local n = View "N" while true do n:triggers(E) keep[#keep + 1] = View "M" end
            keep = nil
            .reset
            "after reset"
            """, arguments: ["--max-memory", "16"])
        #expect(r.output.contains("after t\n"), "\(r.output) \(r.errors)")
        #expect(r.output.contains("after reset\n"), "\(r.output) \(r.errors)")
        #expect(
            r.errors.split(separator: "\n").filter { $0.contains("memory limit exceeded (16 MiB)") }.count == 2,
            "\(r.errors)")
        #expect(r.status == 0)
    }

    @Test func dotCommands() throws {
        let dir = try ReplHarness.temporaryDirectory()
        let file = dir + "/lib.lua"
        try ReplHarness.write(file, "loaded = (loaded or 0) + 1\nreturn 'from file'\n")
        let r = try ReplHarness.piped(
            """
            .help
            .load \(file)
            loaded
            .load \(dir)/missing.lua
            .load
            .frobnicate
            .quit
            "never printed"
            """)
        #expect(r.output.contains(".tree [selector]"))
        #expect(r.output.contains(".warnings"))
        #expect(r.output.contains("from file\n1\n"))
        #expect(!r.output.contains("never printed"))
        #expect(r.errors.contains("error: cannot open '\(dir)/missing.lua': no such file"))
        #expect(r.errors.contains("error: .load needs a file"))
        #expect(r.errors.contains("error: unknown command .frobnicate (try .help)"))
        #expect(r.status == 0)
    }

    @Test func loadOptionRunsAFileFirst() throws {
        let dir = try ReplHarness.temporaryDirectory()
        let file = dir + "/setup.lua"
        try ReplHarness.write(file, "greeting = 'hello'\n")
        let r = try ReplHarness.piped("greeting\n", arguments: ["--load", file])
        #expect(r.output == "hello\n")
        let missing = try ReplHarness.piped("1\n", arguments: ["--load", dir + "/nope.lua"])
        #expect(missing.status == 2)
    }

    @Test func nodesEventsAndTracesPrintReadably() throws {
        let r = try ReplHarness.piped(
            """
            ItemSelected = Event "ItemSelected"
            item = View "Item" { id = "b" }
            root = View "Root" { View "Grid" { item } }
            item
            root
            ItemSelected { item = "b" }
            { first = item, event = ItemSelected { item = "b" } }
            root:handleEvent(ItemSelected, function() end)
            mount(root)
            o = item:trigger(ItemSelected { item = "b" })
            o.handled, o.by
            .tree
            .tree #b
            .trace
            .warnings
            .reset
            .tree
            """)
        let out = r.output
        #expect(out.contains("Item#b\nRoot\nItemSelected{item=\"b\"}\n"))
        #expect(out.contains(#"{ event = ItemSelected{item="b"}, first = Item#b }"#))
        #expect(out.contains("true\tRoot\n"))
        #expect(out.contains("Root  [handleEvent(ItemSelected)]\n  Grid\n    Item#b\n"))
        #expect(out.contains("event ItemSelected{item=\"b\"} from Item#b\n"))
        #expect(out.contains("no warnings"))
        #expect(r.errors.contains("no tree is mounted"))
    }

    /// `.tree` finds a name with a space, and a bad selector is a one-line error that names no
    /// line of the REPL's own Lua (it named its source file: found by an acceptance probe).
    @Test func treeSelectorErrorsNameNoInternalFile() throws {
        let r = try ReplHarness.piped(
            """
            mount(View "Root" { View "Save Button" })
            .tree Save Button
            .tree A B
            """)
        #expect(r.output.contains("Save Button"), "\(r.output)")
        #expect(
            r.errors.contains(
                "error: bad argument #1 to 'find' (selector expected: Name, #id or Name#id; got \"A B\")\n"),
            "\(r.errors)")
        #expect(!r.errors.contains("repl.lua"), "\(r.errors)")
    }

    @Test func warningsAreListed() throws {
        let r = try ReplHarness.piped(
            """
            Ping = Event "Ping"
            root = View "Root" { View "Leaf" }
            mount(root)
            root:find("Leaf"):trigger(Ping())
            .warnings
            """)
        #expect(r.output.contains("1. unhandledEvent: "))
        #expect(r.errors.contains("warning: "))
    }
}

// MARK: - Terminal mode

@Suite("repl, terminal")
struct ReplTerminalTests {
    @Test func promptsEvaluationAndCtrlDLeaves() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("1 + 2\r")
        try t.expect("3\r\n> ")
        t.send("function f()\r")
        try t.expect(">> ")
        t.send("return 5 end\r")
        try t.expect("> ")
        t.send("f()\r")
        try t.expect("5\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func ctrlCInterruptsRunningCodeAndReturnsToThePrompt() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("while true do end\r")
        try t.expect("while true do end\r\n")
        usleep(200_000)
        t.send("\u{03}", editing: false)
        try t.expect("interrupted!")
        try t.expect("> ")
        t.send("'alive'\r")
        try t.expect("alive\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    /// A pcall in the running code cannot swallow Ctrl-C: the interrupt is raised again until
    /// the entry ends (the entry ran on to its timeout, and a third Ctrl-C ended the whole REPL
    /// by SIGINT: found by an adversary probe); code that cannot be interrupted at all restarts
    /// the session, never ends the REPL.
    @Test func ctrlCIsNotSwallowedByPcallAndNeverEndsTheREPL() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("x = 7\r")
        try t.expect("> ")
        t.send("for i = 1, 1e12 do pcall(function() for j = 1, 1e6 do end end) end\r")
        try t.expect("end) end\r\n")
        usleep(300_000)
        t.send("\u{03}", editing: false)
        try t.expect("interrupted!", timeout: 5)
        try t.expect("> ")
        t.send("print('x is', x)\r")
        try t.expect("x is\t7\r\n> ")
        t.send("string.find(('a'):rep(5000), '.-.-.-.-.-.-.-.-b')\r")
        try t.expect("-b')\r\n")
        usleep(300_000)
        for _ in 0..<3 {
            t.send("\u{03}", editing: false)
            usleep(200_000)
        }
        try t.expect("the REPL session was restarted", timeout: 10)
        try t.expect("> ")
        t.send("'alive'\r")
        try t.expect("alive\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    /// A memory limit hit while a global holds the memory used to wedge the session: every later
    /// entry, even `t = nil`, `collectgarbage()` and `.reset`, failed with the limit. Freeing the
    /// memory must make the session usable again, engine objects included.
    @Test func aMemoryLimitEndsTheEntryAndFreeingTheMemoryRecovers() throws {
        let t = try ReplTerminal.start(arguments: ["--max-memory", "16"])
        try t.expect("> ")
        t.send("t = {} for i = 1, 1e7 do t[i] = { i } end\r")
        try t.expect("memory limit exceeded (16 MiB)", timeout: 60)
        try t.expect("> ")
        t.send("t = nil\r")
        try t.expect("> ")
        t.send("collectgarbage()\r")
        try t.expect("> ")
        t.send("'alive ' .. #{ 1, 2 }\r")
        try t.expect("alive 2\r\n> ")
        t.send("keep = {} for i = 1, 1e7 do keep[i] = View 'N' { id = 'node' .. i } end\r")
        try t.expect("memory limit exceeded (16 MiB)", timeout: 60)
        try t.expect("> ")
        t.send("keep = nil\r")
        try t.expect("> ")
        t.send(".reset\r")
        try t.expect("cleared")
        try t.expect("> ")
        t.send("View 'Again'\r")
        try t.expect("Again\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func ctrlCAtThePromptDiscardsTheLine() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("error('should not run')")
        usleep(100_000)
        t.send("\u{03}")
        try t.expect("> ")
        t.send("function g()\r")
        try t.expect(">> ")
        t.send("\u{03}")
        try t.expect("> ")
        t.send("'next'\r")
        try t.expect("next\r\n> ")
        #expect(!t.output.contains("should not run\r\n"))
        #expect(!t.output.contains("error:"))
        t.send(".quit\r")
        #expect(try t.waitForExit() == 0)
    }

    @Test func tabCompletesGlobalsFieldsAndMethods() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("config = { verbose = true }\r")
        try t.expect("> ")
        t.send("mat\t")
        try t.expect("h")
        t.send(".flo\t")
        try t.expect("or")
        t.send("(2.5)\r")
        try t.expect("2\r\n> ")
        t.send("config.verb\t")
        try t.expect("ose")
        t.send("\r")
        try t.expect("true\r\n> ")
        t.send("s = 'abc'\r")
        try t.expect("> ")
        t.send("s:upp\t")
        try t.expect("er")
        t.send("()\r")
        try t.expect("ABC\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func tabCompletesNodeMethodsAndFields() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("item = View \"Item\" { id = \"b\" }\r")
        try t.expect("> ")
        t.send("item:findA\t")
        try t.expect("ll")
        t.send("(\"Item\")\r")
        try t.expect("{ Item#b }\r\n> ")
        t.send("item.chi\t")
        try t.expect("ldren")
        t.send("\r")
        try t.expect("{}\r\n> ")
        t.send("item:removeR\t")
        try t.expect("esponder")
        t.send("\u{03}")
        try t.expect("> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func tabCompletesTheKitsNamesAndTheModulesNamesAreGlobals() throws {
        // issue 10, item 4: names created on first use complete like every other
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("Prefer\t")
        try t.expect("ence")
        t.send("\u{03}")
        try t.expect("> ")
        t.send("item = View \"Item\"\r")
        try t.expect("> ")
        t.send("item:onAsyncTaskSt\t")
        try t.expect("arted")
        t.send("\u{03}")
        try t.expect("> ")
        t.send("item:onApp\t")
        try t.expect("ear")
        t.send("\u{03}")
        try t.expect("> ")
        t.send("print(reset == responder.reset, type(alert), getmetatable(_G), type(responder.reset))\r")
        try t.expect("true\tfunction\tnil\tfunction\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func dotTraceMarksWhereAnInterruptedDispatchStopped() throws {
        // issue 10: after an interrupted dispatch `.trace` marks where it stopped
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("E = Event \"E\"; root = View \"root\" {}; a = View \"a\" {}; root:add(a); mount(root)\r")
        try t.expect("> ")
        t.send("a:receiveEvent(E, function() end); root:handleEvent(E, function() while true do end end)\r")
        try t.expect("> ")
        t.send("a:trigger(E {})\r")
        try t.expect("a:trigger(E {})\r\n")
        usleep(200_000)
        t.send("\u{03}", editing: false)
        try t.expect("interrupted!")
        try t.expect("> ")
        t.send(".trace\r")
        try t.expect("did not run\r\n> ")
        #expect(t.output.contains("receiveEvent(E)"))
        #expect(t.output.contains("✗ stopped here: interrupted (Ctrl-C) in stdin:1"))
        // a later, complete action: no mark
        t.send("F = Event \"F\"; a:handleEvent(F, function() end); return a:trigger(F {})\r")
        try t.expect("handled F{} by a")
        try t.expect("> ")
        t.send(".trace\r")
        try t.expect("event F{} from a")
        try t.expect("> ")
        #expect(t.output.ranges(of: "stopped here").count == 1)
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func ctrlLClearsTheScreenAndCtrlCEndsTheLineWithANewline() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("\u{0C}")
        try t.expect("\u{1B}[2J")
        try t.expect("> ")
        t.send("half typed")
        usleep(100_000)
        t.send("\u{03}")
        try t.expect("half typed")
        try t.expect("\r\n> ")
        t.send("'next'\r")
        try t.expect("next\r\n> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func historyIsSavedAndLoaded() throws {
        let t = try ReplTerminal.start()
        try t.expect("> ")
        t.send("remembered = 41\r")
        try t.expect("> ")
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
        let history = try ReplHarness.read(t.home + "/.responder_history")
        #expect(history.contains("remembered"))

        let again = try ReplTerminal.start(home: t.home)
        try again.expect("> ")
        again.send("\u{1B}[A")  // up arrow: the previous entry
        try again.expect("remembered = 41")
        again.send(" + 1\rremembered\r")
        try again.expect("42\r\n> ")
        again.send("\u{04}")
        #expect(try again.waitForExit() == 0)
    }

    @Test func firstPromptIsFast() throws {
        var best = Int.max
        for _ in 0..<3 {
            let start = ReplHarness.nowMicros()
            let t = try ReplTerminal.start()
            try t.expect("> ")
            best = min(best, ReplHarness.nowMicros() - start)
            t.send("\u{04}")
            _ = try t.waitForExit()
        }
        // SPEC: ≤ 50 ms to the first prompt (a debug build under a loaded CI may be slower,
        // so the test allows 4× and the benchmark records the real figure).
        #expect(best < 200_000, "first prompt after \(best) µs")
    }
}

// MARK: - Harness

enum ReplHarness {
    struct Result {
        var output: String
        var errors: String
        var status: Int32
    }

    static func temporaryDirectory() throws -> String {
        try ResponderBinary.temporaryFolder("/tmp/responder-repl-test-")
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw HarnessFailure(description: "cannot write \(path)") }
        defer { close(fd) }
        var t = text
        _ = t.withUTF8 { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw HarnessFailure(description: "cannot read \(path)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 65536) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func nowMicros() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.tv_sec * 1_000_000 + ts.tv_nsec / 1000
    }

    /// Environment for the child: a private HOME (history) and no colour.
    static func environment(home: String) -> [String] {
        ["HOME=\(home)", "TERM=xterm", "PATH=/usr/bin:/bin", "NO_COLOR=1", "LANG=C.UTF-8"]
    }

    /// Spawns `responder repl ARGS` and returns its pid.
    static func spawn(
        arguments: [String], environment: [String],
        actions: inout posix_spawn_file_actions_t, attributes: inout posix_spawnattr_t
    ) throws -> pid_t {
        let path = try ResponderBinary.path()
        let argv = ([path, "repl"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child must not inherit the test runner's blocked or ignored SIGINT.
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags: Int16 = 0
        posix_spawnattr_getflags(&attributes, &flags)
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw HarnessFailure(description: "posix_spawn failed: \(rc)") }
        return pid
    }

    /// Waits for the child, killing it after `timeout` seconds.
    static func wait(_ pid: pid_t, timeout: Double = 30) throws -> Int32 {
        let deadline = nowMicros() + Int(timeout * 1_000_000)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 { throw HarnessFailure(description: "waitpid failed") }
            if nowMicros() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw HarnessFailure(description: "responder repl did not exit within \(timeout) s")
            }
            usleep(5_000)
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    /// Runs `responder repl` with `input` as standard input (a file, so not a terminal).
    static func piped(_ input: String, arguments: [String] = [], mergeStreams: Bool = false) throws -> Result {
        let dir = try temporaryDirectory()
        let inPath = dir + "/stdin"
        let outPath = dir + "/stdout"
        let errPath = dir + "/stderr"
        try write(inPath, input.hasSuffix("\n") ? input : input + "\n")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if mergeStreams {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let pid = try spawn(
            arguments: arguments, environment: environment(home: dir),
            actions: &actions, attributes: &attributes)
        let status = try wait(pid)
        return Result(output: try read(outPath), errors: mergeStreams ? "" : try read(errPath), status: status)
    }
}

/// `responder repl` on a pseudo-terminal: the child is a session leader whose controlling
/// terminal is the pty, so Ctrl-C (0x03) written to the master raises SIGINT in it.
final class ReplTerminal {
    let master: Int32
    let pid: pid_t
    let home: String
    private(set) var bytes: [UInt8] = []
    private var mark = 0
    private var exited = false

    var output: String { String(decoding: bytes, as: UTF8.self) }

    init(arguments: [String] = [], home: String? = nil) throws {
        self.home = try home ?? ReplHarness.temporaryDirectory()
        // posix_openpt/grantpt/unlockpt/ptsname are not visible from Swift's Glibc module;
        // these are their Linux definitions (devpts): open the multiplexer, unlock, ask the number.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw HarnessFailure(description: "cannot open /dev/ptmx") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let TIOCSPTLCK: UInt = 0x4004_5431
        let TIOCGPTN: UInt = 0x8004_5430
        guard ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            close(master)
            throw HarnessFailure(description: "cannot set up the pseudo-terminal")
        }
        let slave = "/dev/pts/\(number)"
        var size = winsize(ws_row: 24, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, master)
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc ≥ 2.26): setsid() before the file actions, so opening the
        // slave makes it the controlling terminal.
        posix_spawnattr_setflags(&attributes, 0x80)
        pid = try ReplHarness.spawn(
            arguments: arguments, environment: ReplHarness.environment(home: self.home),
            actions: &actions, attributes: &attributes)
    }

    /// Starts a REPL on a new pseudo-terminal and waits for its first prompt (without consuming
    /// it). Under a heavily loaded parallel test run a child has, rarely, produced no output at
    /// all; that is the harness's environment, not the REPL under test, so a terminal whose
    /// first prompt does not come within 20 s is replaced once by a new one.
    static func start(arguments: [String] = [], home: String? = nil) throws -> ReplTerminal {
        var lastError: Error?
        for _ in 0..<2 {
            let t = try ReplTerminal(arguments: arguments, home: home)
            do {
                try t.expect("> ", timeout: 20)
                t.mark = 0
                return t
            } catch {
                lastError = error
            }
        }
        throw lastError ?? HarnessFailure(description: "responder repl did not start")
    }

    deinit {
        if !exited {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        close(master)
    }

    /// Writes `text` to the terminal. By default it first waits (up to 2 s) until libedit has
    /// switched the terminal to raw mode: input typed before that is handled as cooked typeahead
    /// (echoed by the kernel, Ctrl-D lost), which is libedit's behaviour, not what a test checks.
    /// Pass `editing: false` to type while code runs (Ctrl-C).
    func send(_ text: String, editing: Bool = true) {
        if editing {
            let deadline = ReplHarness.nowMicros() + 2_000_000
            var tio = termios()
            while ReplHarness.nowMicros() < deadline {
                if tcgetattr(master, &tio) == 0 && tio.c_lflag & UInt32(ICANON) == 0 { break }
                usleep(1_000)
            }
        }
        var t = text
        _ = t.withUTF8 { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// Reads until `text` appears in the output after the previous match.
    func expect(_ text: String, timeout: Double = 30) throws {
        let needle = Array(text.utf8)
        let deadline = ReplHarness.nowMicros() + Int(timeout * 1_000_000)
        while true {
            if let end = find(needle) {
                mark = end
                return
            }
            let left = deadline - ReplHarness.nowMicros()
            if left <= 0 { break }
            var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(left / 1000, 100)))
            if ready > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, 4096) }
                if n <= 0 { break }
                bytes.append(contentsOf: chunk[0..<n])
            }
        }
        if let end = find(needle) {
            mark = end
            return
        }
        let seen = String(decoding: bytes[mark...], as: UTF8.self)
        throw HarnessFailure(
            description:
                "expected \(String(reflecting: text)) in terminal output; after the last match got \(String(reflecting: seen))"
        )
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, bytes.count - mark >= needle.count else { return nil }
        var i = mark
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle { return i + needle.count }
            i += 1
        }
        return nil
    }

    func waitForExit(timeout: Double = 30) throws -> Int32 {
        // Drain output so the child never blocks on a full pty buffer.
        let deadline = ReplHarness.nowMicros() + Int(timeout * 1_000_000)
        while ReplHarness.nowMicros() < deadline {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                exited = true
                if status & 0x7f == 0 { return (status >> 8) & 0xff }
                return 128 + (status & 0x7f)
            }
            var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 20) > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, 4096) }
                if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            }
        }
        throw HarnessFailure(description: "responder repl did not exit; output: \(String(reflecting: output))")
    }
}
