import CLua
import CLuaShim
import ResponderEngine

// What happens to an error raised by a Lua callback that Swift called (a tap action, a control
// or kit function, an environment hook): it is either reported from a node like any error a
// script raises, or left to unwind when a limit, an interrupt or a strict abort is on its way.

extension ModuleState {
    /// Whether a failed call must go on unwinding instead of being reported: a limit was raised,
    /// the instruction budget is spent, a strict abort or an earlier pending error is on its way,
    /// or (when `countingInterrupt`) a Ctrl-C interrupt is pending.
    package func failureUnwinds(countingInterrupt: Bool = true) -> Bool {
        let c = runtime.control.pointee
        return c.limitRaised != 0 || c.budgetExceeded != 0 || (countingInterrupt && c.interrupt != 0)
            || world.pendingAbort != nil || pendingErrorSet
    }

    /// The error a failed call raised (its error value on top of the stack, left there), as it is
    /// reported: an error value as it is, anything else as a `LuaError` raised at `node` with the
    /// message and the saved traceback. The saved traceback is taken either way.
    package func failedCallError(from node: Node) -> Value {
        if let v = value(at: -1), v.kind == .error {
            _ = runtime.takeTraceback()
            return v
        }
        return ValueBinding.luaError(
            self, message: runtime.describeError(at: -1),
            traceback: runtime.takeTraceback(), node: node)
    }

    /// After a failed call (error value on top): when the failure unwinds (see `failureUnwinds`)
    /// it is kept as the pending error, unless one is already pending or a strict abort is on its
    /// way, and thrown (`EngineError.aborted` for an abort); any other error is reported from
    /// `node`, as an error raised by a tap action is. The error value is popped.
    package func reportFailedCall(from node: Node, countingInterrupt: Bool = true) throws {
        if failureUnwinds(countingInterrupt: countingInterrupt) {
            if !pendingErrorSet && world.pendingAbort == nil { setPendingError() }
            throw world.pendingAbort != nil ? EngineError.aborted : LuaCallError()
        }
        let error = failedCallError(from: node)
        luashim_pop(L, 1)
        _ = try world.report(error, from: node, location: location())
    }
}
