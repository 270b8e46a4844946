/// Which Lua thread the runtime works on: the bindings and the runtime's stack helpers work on
/// ``LuaRuntime/L``, which follows the thread that called into the host (a coroutine calls
/// bindings on its own stack).
extension LuaRuntime {
    /// The runtime of the Lua thread `L` that called a Swift function, pointed at that thread.
    /// The runtime's stack helpers (`string(at:)`, `pushString`, …) work on ``L``, which a binding
    /// called from a coroutine points at the coroutine's thread: a host function that read its
    /// arguments through the runtime after that read a finished coroutine's stack (the test
    /// worker crashed, or took an error message for a chunk name: found by an adversary probe).
    /// Every Swift function Lua calls starts with this or `ModuleState.enter`.
    public static func entered(_ L: OpaquePointer?) -> LuaRuntime {
        let rt = of(L)
        if let L, rt.L != L { rt.restoreThread(L) }
        return rt
    }

    /// Code the call ran may have called bindings from a coroutine, which pointed them at that
    /// coroutine's thread: point them back at the thread this call runs on.
    func restoreThread(_ thread: OpaquePointer) {
        if let m = moduleState { m.switchTo(thread) } else { L = thread }
    }
}
