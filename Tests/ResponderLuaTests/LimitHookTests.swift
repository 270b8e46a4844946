import CLua
import CLuaShim
import Testing

@testable import ResponderLua

/// Lines a coverage-style line callback saw (the callback context of `luashim_set_line_hook`).
final class LineLog {
    var lines: [Int32] = []
}

let recordLine: luashim_line_fn = { _, ar, ud in
    guard let ar, let ud else { return }
    Unmanaged<LineLog>.fromOpaque(ud).takeUnretainedValue().lines.append(ar.pointee.currentline)
}

/// The limit hook of `limits.c`: the sampled budget, exact counting, and the line-hook
/// composition point that coverage uses.
@Suite("limit hook")
struct LimitHookTests {
    /// The default (sampled) budget has no count hook between timer ticks, yet still stops
    /// runaway code, in the main thread and in coroutines, and a pcall cannot swallow it.
    @Test(arguments: [
        "while true do end",
        "while true do pcall(function() while true do end end) end",
        "while true do coroutine.wrap(function() for i = 1, 50 do end end)() end",
    ])
    func sampledBudgetStopsRunawayCode(_ code: String) throws {
        let rt = try LuaRuntime(
            limits: LuaLimits(maxInstructions: 20_000_000, maxMemoryMiB: nil, exactInstructions: false))
        var failure: LuaFailure?
        do { try rt.runString(code, chunkname: "=sampled") } catch { failure = error }
        #expect(failure?.kind == .instructionLimit, "\(String(describing: failure))")
        #expect(luashim_instructions_charged(rt.L) > 20_000_000)
    }

    /// Exact counting charges every instruction, also those of coroutines that end before a
    /// count period is over: the same work counts the same whether or not it is split.
    @Test func exactCountIsTheSameWithAndWithoutCoroutines() throws {
        func count(_ code: String) throws -> Int64 {
            let rt = try LuaRuntime(limits: LuaLimits(maxInstructions: 1_000_000_000, maxMemoryMiB: nil))
            try rt.runString(code, chunkname: "=count")
            return luashim_instructions_charged(rt.L)
        }
        let plain = try count(
            "local f = function(a) local x = a for k = 1, 40 do x = x + k end return x end\n"
                + "local n = 0 for i = 1, 10000 do n = n + f(i) end")
        let split = try count(
            "local f = function(a) local x = a for k = 1, 40 do x = x + k end return x end\n"
                + "local n = 0 for i = 1, 10000 do n = n + coroutine.wrap(f)(i) end")
        #expect(plain > 800_000)
        // the coroutine version runs a few more instructions per call (wrap, the extra call)
        #expect(split >= plain && split < plain + 10000 * 8, "plain \(plain), split \(split)")
    }

    /// Exact counting is the same whether or not the memory cap is crossed on the way: each
    /// crossing arms a one-instruction period to decide it, and that instruction counts too
    /// (it was lost at every crossing: 78 instructions fewer with a 2 MiB cap than with 8).
    @Test func exactCountIsTheSameWhenTheMemoryCapIsCrossed() throws {
        let code = """
            local keep = {}
            for i = 1, 12000 do keep[i] = { i } end
            for r = 1, 30 do
              for i = 1, 12000 do local t = { i, i + 1, x = i } end
            end
            """
        func count(capMiB: Int) throws -> Int64 {
            let rt = try LuaRuntime(limits: LuaLimits(maxInstructions: 1_000_000_000, maxMemoryMiB: capMiB))
            try rt.runString(code, chunkname: "=crossings")
            return luashim_instructions_charged(rt.L)
        }
        let loose = try count(capMiB: 64)
        let tight = try count(capMiB: 2)
        #expect(loose > 2_000_000)
        #expect(tight == loose, "2 MiB cap \(tight), 64 MiB cap \(loose)")
    }

    /// A line callback (coverage) and the limit hook share one C hook: lines are seen in every
    /// budget mode, and the budget still stops the script.
    @Test(arguments: [true, false])
    func lineCallbackComposesWithTheLimits(exact: Bool) throws {
        let rt = try LuaRuntime(
            limits: LuaLimits(maxInstructions: 5_000_000, maxMemoryMiB: nil, exactInstructions: exact))
        let log = LineLog()
        luashim_set_line_hook(rt.L, recordLine, Unmanaged.passUnretained(log).toOpaque())
        try rt.runString(
            "local a = 1\nlocal b = 2\nlocal co = coroutine.wrap(function()\nreturn a + b\nend)\nco()\n",
            chunkname: "=lines")
        #expect(
            log.lines.contains(1) && log.lines.contains(2) && log.lines.contains(4) && log.lines.contains(6),
            "\(log.lines)")
        var failure: LuaFailure?
        do { try rt.runString("while true do end", chunkname: "=loop") } catch { failure = error }
        #expect(failure?.kind == .instructionLimit)
        luashim_set_line_hook(rt.L, nil, nil)
        withExtendedLifetime(log) {}
    }

    /// The wall-clock limit raised by the hook is a limit (exit 3) with its own message.
    @Test func timeoutIsALimitFailure() throws {
        let rt = try LuaRuntime(limits: LuaLimits(maxInstructions: nil, maxMemoryMiB: nil, timeoutSeconds: 0.2))
        rt.startTimeout()
        defer { rt.stopTimeout() }
        var failure: LuaFailure?
        do { try rt.runString("local function spin() while true do end end spin()", chunkname: "=t") } catch {
            failure = error
        }
        #expect(failure?.kind == .timeout)
        #expect(failure?.isLimit == true)
        #expect(
            failure?.message == "t:1: time limit exceeded (0.2 s) in function 'spin'; raise it with --timeout SECONDS")
    }

    /// Host work charged to the budget stops the script once it is spent (engine walks call
    /// `LuaRuntime.charge`).
    @Test func chargedHostWorkCountsAgainstTheBudget() throws {
        let rt = try LuaRuntime(limits: LuaLimits(maxInstructions: 1_000_000, maxMemoryMiB: nil))
        #expect(rt.charge(500_000) == false)
        #expect(rt.charge(600_000) == true)
        #expect(rt.control.pointee.budgetExceeded != 0)
        rt.resetLimits()
        #expect(rt.control.pointee.budgetExceeded == 0)
    }
}
