/// A table of Swift functions that Lua calls (`ValueBinding`, `NodeBinding`, the kit's
/// bindings, …): each function starts with `let m = state(L)` to reach its module state.
package protocol ModuleBinding {}

extension ModuleBinding {
    /// The module state of the calling Lua thread (``ModuleState/enter(_:)``).
    @inline(__always)
    package static func state(_ L: OpaquePointer?) -> ModuleState { ModuleState.enter(L) }
}
