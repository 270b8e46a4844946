import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// The trace of `post` (SPEC §2.8: every top-level action records a trace): an action trace
/// `action post(name) from Root` with one step per receiver called, `onReceive(name)` at its
/// position among the node's receivers of that name, `handled`, or `threw` followed by the steps
/// of the error it raised, reported from its node (as a control action's trace goes on).
///
/// The prelude's `post` calls `K.traceBegin()` (returns a mark), `K.traceStep(mark, node,
/// index, name, ok)` after each receiver and `K.traceEnd(mark, name, root)`. Posts nest (a
/// receiver may post): the marks keep each post's steps apart, and an end discards what a post
/// that unwound left behind.
enum PostTrace {
    /// One post being traced: its steps, the last trace before it began, and the last trace
    /// after its latest step (what a receiver's reported error is told apart from).
    struct Pending {
        var steps: [TraceStep] = []
        let before: Trace?
        var last: Trace?
    }

    /// `K.traceBegin()`: starts a post's trace; returns its mark.
    static let begin: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let last = m.world.lastTrace
        m.kit.postTraces.append(Pending(before: last, last: last))
        lua_pushinteger(L, lua_Integer(m.kit.postTraces.count))
        return 1
    }

    /// `K.traceStep(mark, node, index, name, ok)`: a receiver ran (`ok`: it did not raise).
    static let step: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let mark = Int(luashim_tointeger(L, 1, nil))
        guard mark >= 1, mark <= m.kit.postTraces.count, let node = m.node(at: 2),
            let name = m.kitString(at: 4)
        else { return 0 }
        let index = Int(luashim_tointeger(L, 3, nil))
        let ok = lua_toboolean(L, 5) != 0
        let value = Trace.actionValue("post(\(name))")
        let errorSteps = ok ? [] : m.world.stepsOfErrorReported(since: m.kit.postTraces[mark - 1].last)
        m.kit.postTraces[mark - 1].steps.append(
            TraceStep(
                node: node, index: index, responder: "onReceive(\(name))", filter: nil, value: value,
                decision: ok ? .handled : .threw, result: errorSteps.first?.value))
        m.kit.postTraces[mark - 1].steps += errorSteps
        m.kit.postTraces[mark - 1].last = m.world.lastTrace
        return 0
    }

    /// `K.traceEnd(mark, name, root)`: records the post's trace as the last trace (and prints
    /// it with `--trace`).
    static let end: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        let mark = Int(luashim_tointeger(L, 1, nil))
        guard mark >= 1, mark <= m.kit.postTraces.count else { return 0 }
        let pending = m.kit.postTraces[mark - 1]
        m.kit.postTraces.removeSubrange((mark - 1)...)
        guard let name = m.kitString(at: 2), let root = m.node(at: 3) else { return 0 }
        m.world.recordAction(
            Trace(action: Trace.actionValue("post(\(name))"), origin: root, steps: pending.steps))
        m.printNewActionTrace(since: pending.before)
        return 0
    }
}
