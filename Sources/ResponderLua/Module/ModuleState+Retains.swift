import CLua
import ResponderEngine

/// The retains userdata own: taken when a userdata is made, given back by its `__gc`, and the
/// ones Lua never finalized given back once the state is closed.
extension ModuleState {
    /// The retain a new userdata owns, listed until its `__gc` gives it back (``finalized(_:)``).
    /// Lua does not call every `__gc`: it finalizes nothing made while `lua_close` runs
    /// finalizers (`closing`), and a finalizer it cannot call is skipped, the userdata freed
    /// anyway (a collection step at Lua's limit of 200 nested C calls fails to call it with
    /// "C stack overflow", which Lua only warns about; scripts/fuzz-findings.md F-leak). The
    /// retains still listed once the state is closed are given back then
    /// (``releaseClosingRetains()``). Tests: scripts/tests/safety/finalizers_spec.lua and
    /// finalizer_depth_spec.lua under the sanitizer step.
    @inline(never)
    func retained(_ object: AnyObject) -> UnsafeMutableRawPointer {
        let p = Unmanaged.passRetained(object).toOpaque()
        ownedRetains.insert(p)
        return p
    }

    /// The retain a new node userdata with cache key `key` owns, listed at the key until the
    /// userdata's `__gc` gives the key back (``nodeFinalized(_:key:)``).
    func retainedNode(_ node: Node, key: lua_Integer) -> UnsafeMutableRawPointer {
        let p = Unmanaged.passRetained(node).toOpaque()
        let i = Int(key) - 1
        while nodeRetains.count <= i { nodeRetains.append(nil) }
        nodeRetains[i] = p
        return p
    }

    /// Called by the `__gc` of a userdata other than a node's with the retain it gives back
    /// (before releasing it).
    func finalized(_ p: UnsafeMutableRawPointer) {
        ownedRetains.remove(p)
    }

    /// Gives back the retains of userdata Lua never finalized (after `lua_close`).
    func releaseClosingRetains() {
        let left = ownedRetains.takeAll()
        let nodes = nodeRetains
        nodeRetains = []
        closing = false
        for p in left { Unmanaged<AnyObject>.fromOpaque(p).release() }
        for case let p? in nodes { Unmanaged<AnyObject>.fromOpaque(p).release() }
    }
}
