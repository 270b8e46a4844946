import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import Testing

@testable import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Code shaped like luacov's false-miss reports (multi-line calls and tables, `..` and
/// `:method` continued on the next line, `break`, nested and never-called functions, a
/// coroutine body).
private let tricky = """
    local t = {
      a = 1,
      b = "x"
        .. "y",
    }
    local function f(x, ...)
      local s = string.format("%d",
        x)
      for i = 1, 3 do
        if i == 2 then break end
      end
      return s
        :upper()
    end
    local function never()
      local y = nil
      return y
    end
    local co = coroutine.wrap(function()
      local z = f(2)
      coroutine.yield(z)
    end)
    co()
    print = nil
    return f(1), t
    """

@Suite("coverage")
struct CoverageTests {
    private func runtime(_ mode: CoverageMode) throws -> LuaRuntime {
        var o = ScenarioOptions(limits: .unlimited)
        o.coverage = mode
        return try Scenario.makeRuntime(o)
    }

    /// Runs `source` with every line of it counted; returns the lines that ran and the
    /// executable lines the dump gives.
    private func hitAndActive(_ source: String, resetLimitsFirst: Bool = false) throws -> (
        hit: Set<Int>, active: Set<Int>
    ) {
        let rt = try runtime(.off)
        luashim_coverage_enable(rt.L)
        if resetLimitsFirst { rt.resetLimits() }
        let bytes = Array(source.utf8)
        let status = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { luashim_load_text(rt.L, $0.baseAddress, $0.count, "@tricky.lua") }
        }
        #expect(status == LUA_OK)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).count
        var size = 0
        let dump = luashim_dump_function(rt.L, -1, &size)!
        let active = try BytecodeLines.activeLines(Array(UnsafeBufferPointer(start: dump, count: size)))
        free(dump)
        let counts = luashim_coverage_register(rt.L, -1, Int32(lines))!
        lua_pushvalue(rt.L, -1)
        lua_setfield(rt.L, luashim_registryindex(), "test.anchor")
        #expect(rt.call(0, 0) == nil)
        let hit = Set((1...lines).filter { counts[$0] > 0 })
        return (hit, Set(active))
    }

    @Test func everyLineTheHookReportsIsExecutableAndMissesAreExact() throws {
        let (hit, active) = try hitAndActive(tricky)
        #expect(hit.isSubset(of: active), "hit but not active: \(hit.subtracting(active).sorted())")
        // the coroutine body ran (hooks are copied into threads made after coverage was on)
        #expect(hit.contains(20) && hit.contains(21))
        // never() is a true miss: its body lines are executable and never ran
        #expect(active.contains(16) && active.contains(17) && !hit.contains(16) && !hit.contains(17))
        // lines the compiler emitted nothing for are not executable
        #expect(!active.contains(5) && !active.contains(6))
        #expect(hit.contains(8) && hit.contains(13))
    }

    @Test func theLineBitSurvivesResettingTheLimits() throws {
        let (hit, _) = try hitAndActive("local a = 1\nlocal b = 2\nreturn a + b\n", resetLimitsFirst: true)
        #expect(hit == [1, 2, 3])
    }

    @Test func recorderCountsUserFilesOnlyAndRespondersAtTheirLine() throws {
        let rt = try runtime(.linesAndResponders)
        let source = """
            local E = Event "E"
            local root = View "Root" { View "Leaf" { id = "leaf" } }
            root:handleEvent(E, function() end)
            root:receiveEvent(function() return false end, { id = "spare" })
            mount(root)
            root:find("#leaf"):trigger(E())
            """
        try rt.runString(source, chunkname: "@screen.lua")
        try rt.runString("local x = 1", chunkname: "=builtin")
        let data = rt.coverage!.snapshot()
        #expect(Array(data.files.keys) == ["screen.lua"])
        #expect(data.files["screen.lua"]!.counts[6] == 1)
        let handlers = data.sortedResponders
        #expect(handlers.map(\.line) == [3, 4])
        #expect(handlers[0].reached == 1 && handlers[0].handled == 1 && handlers[0].node == "Root")
        #expect(handlers[1].reached == 0 && handlers[1].skipped == 0 && handlers[1].id == "spare")
        #expect(handlers[1].functionName == "receiveEvent:4[id=spare]")
        #expect(
            data.lcov().contains(
                "FN:3,handleEvent(E):3\nFN:4,receiveEvent:4[id=spare]\nFNDA:1,handleEvent(E):3\nFNDA:0,receiveEvent:4[id=spare]\n"
            ))
    }

    /// One line that registers on several nodes (a loop) gives one LCOV function per node, as
    /// the summary counts them: LCOV said 1 of 1 function hit where the summary said 1 of 3
    /// reached (found by an acceptance probe). The summary keeps each entry on one line.
    @Test func aLoopsRegistrationsAreOneFunctionPerNode() throws {
        let rt = try runtime(.linesAndResponders)
        let source = """
            local E = Event "E"
            local root = View "Root" {}
            for i = 1, 3 do
              local it = View "Item" { id = "i" .. i }
              root:add(it)
              it:receiveEvent(E, function() return true end)
            end
            root:find("#i1"):trigger(E {})
            local odd = View "Odd\\nFN:1,forged" { id = "x" }
            odd:handleEvent(E, function() end)
            """
        try rt.runString(source, chunkname: "@loop.lua")
        let data = rt.coverage!.snapshot()
        let lcov = data.lcov()
        #expect(lcov.contains("FNDA:1,receiveEvent(E):6 on Root > Item#i1\n"), "\(lcov)")
        #expect(lcov.contains("FNDA:0,receiveEvent(E):6 on Root > Item#i2\n"), "\(lcov)")
        #expect(lcov.contains("FNDA:0,receiveEvent(E):6 on Root > Item#i3\n"), "\(lcov)")
        #expect(lcov.contains("FN:10,handleEvent(E):10\n"), "\(lcov)")
        #expect(lcov.contains("FNF:4\nFNH:1\n"), "\(lcov)")
        let summary = data.summary()
        #expect(summary.contains("Responders: 1 of 4 reached\n"), "\(summary)")
        #expect(summary.split(separator: "\n").filter { $0.hasPrefix("  never reached:") }.count == 3, "\(summary)")
        #expect(!summary.contains("\nFN:1"), "\(summary)")
    }

    @Test func wireLinesRoundTrip() throws {
        var data = CoverageData()
        data.files["a b\tc.lua"] = .init(counts: [1: 3, 4: 0])
        var r = CoverageData.Responder(
            kind: "triggers", filter: nil, declared: ["A", "B,C"], id: "x\ny",
            file: "a.lua", line: 4, node: "Root > Item#b")
        r.reached = 2
        r.seen = ["A": 2]
        data.add(r)
        data.add(CoverageData.Control(kind: "Toggle", node: "Root > Toggle#t", driven: 0))
        var back = CoverageData()
        for line in data.wireLines() {
            let added = back.addWireLine(line)
            #expect(added)
        }
        #expect(back == data)
        let odd = back.addWireLine("CX\tnothing")
        #expect(!odd)
        // merging sums counts
        back.merge(data)
        #expect(back.files["a b\tc.lua"]!.counts[1] == 6 && back.sortedResponders[0].reached == 4)
        #expect(back.sortedResponders[0].functionName == "triggers(A+B+C):4[id=x y]")
    }

    @Test func malformedDumpsAreRejected() {
        #expect(throws: BytecodeLines.Malformed.self) { try BytecodeLines.activeLines([0x1b, 0x4c, 0x75]) }
        #expect(throws: BytecodeLines.Malformed.self) { try BytecodeLines.activeLines(Array("print(1)".utf8)) }
    }
}
