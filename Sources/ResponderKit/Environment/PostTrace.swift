import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// The trace of `post` (SPEC §2.8: every top-level action records a trace): an action trace
/// `action post(name) from Root` with one step per receiver called, `onReceive(name)` at its
/// position among the node's receivers of that name, `handled`, or `threw` followed by the steps
/// of the error it raised, reported from its node (as a control action's trace goes on).
///
/// The prelude's `post` calls `K.traceBegin(name)` (returns a mark), `K.traceStep(mark, node,
/// index, ok)` after each receiver and `K.traceEnd(mark, root)`. Posts nest (a
/// receiver may post): the marks keep each post's steps apart; an end discards what a nested post
/// that unwound left behind, and a post outside any action what an outer one left.
enum PostTrace {
    /// One post being traced: the value that stands for it (`post(name)`), its receivers'
    /// label, its steps, the last trace before it began, and the last trace after its latest
    /// step (what a receiver's reported error is told apart from).
    struct Pending {
        let value: Value
        let responder: String
        var steps: [TraceStep] = []
        let before: Trace?
        var last: Trace?
    }

    /// `K.traceBegin(name)`: starts the trace of a post of `name`; returns its mark.
    static let begin: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let name = m.kitString(at: 1) ?? "?"
        // Outside any action no post is running (a nested one runs inside a receiver, an
        // action): what a post that unwound (a strict violation, a limit) left behind goes, or a
        // script repeating that would grow the list without end.
        if m.world.actionDepth == 0 { m.kit.postTraces.removeAll() }
        let last = m.world.lastTrace
        m.kit.postTraces.append(
            Pending(
                value: Trace.actionValue("post(\(name))"), responder: "onReceive(\(name))", before: last, last: last))
        lua_pushinteger(L, lua_Integer(m.kit.postTraces.count))
        return 1
    }

    /// `K.traceStep(mark, node, index, ok)`: a receiver ran (`ok`: it did not raise).
    static let step: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let mark = Int(luashim_tointeger(L, 1, nil))
        guard mark >= 1, mark <= m.kit.postTraces.count, let node = m.node(at: 2) else { return 0 }
        let index = Int(luashim_tointeger(L, 3, nil))
        let ok = lua_toboolean(L, 4) != 0
        let pending = m.kit.postTraces[mark - 1]
        let errorSteps = ok ? [] : m.world.stepsOfErrorReported(since: pending.last)
        m.kit.postTraces[mark - 1].steps.append(
            TraceStep(
                node: node, index: index, responder: pending.responder, filter: nil, value: pending.value,
                decision: ok ? .handled : .threw, result: errorSteps.first?.value))
        m.kit.postTraces[mark - 1].steps += errorSteps
        m.kit.postTraces[mark - 1].last = m.world.lastTrace
        return 0
    }

    /// `K.traceEnd(mark, root)`: records the post's trace as the last trace (and prints
    /// it with `--trace`).
    static let end: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let mark = Int(luashim_tointeger(L, 1, nil))
        guard mark >= 1, mark <= m.kit.postTraces.count else { return 0 }
        let pending = m.kit.postTraces[mark - 1]
        m.kit.postTraces.removeSubrange((mark - 1)...)
        guard let root = m.node(at: 2) else { return 0 }
        m.world.recordAction(Trace(action: pending.value, origin: root, steps: pending.steps))
        m.printNewActionTrace(since: pending.before)
        return 0
    }
}
