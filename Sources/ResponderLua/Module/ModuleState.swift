import CLua
import CLuaShim
import ResponderEngine

/// Shared liveness flag: Swift objects that outlive the state (released after `lua_close`)
/// check it before touching Lua.
package final class StateHandle {
    package var L: OpaquePointer?
    init(_ L: OpaquePointer) { self.L = L }
}

/// The kinds of Swift objects that live in Lua as userdata, each with its own metatable
/// (`makeMetatable`). The module's own kinds are below; an extension numbers its kinds from
/// `firstExtensionValue` on.
package struct ObjectKind: Hashable, Sendable {
    package let rawValue: Int
    @inline(__always) package init(rawValue: Int) { self.rawValue = rawValue }

    package static var node: ObjectKind { .init(rawValue: 0) }
    package static var value: ObjectKind { .init(rawValue: 1) }
    package static var type: ObjectKind { .init(rawValue: 2) }
    package static var outcome: ObjectKind { .init(rawValue: 3) }
    package static var trace: ObjectKind { .init(rawValue: 4) }
    package static var publisher: ObjectKind { .init(rawValue: 5) }
    package static var context: ObjectKind { .init(rawValue: 6) }
    /// The first raw value free for an extension's kinds.
    package static let firstExtensionValue = 7

    /// How messages name the module's own kinds, by raw value (an extension names its kinds
    /// when it makes their metatables).
    static let coreLabels = ["node", "value", "type", "outcome", "trace", "publisher", "context"]
}

/// Everything the `responder` module keeps per Lua state: the engine world, metatables,
/// identity caches and the built-in types.
///
/// Lifetime proof for the `unowned(unsafe)` captures of a module state (`[unowned(unsafe) m]` in
/// world hooks, responder bodies, tap actions and subscribers): the runtime owns the module state
/// and closes the Lua state in its `deinit` before releasing it, so every node Lua holds is
/// released first; the world (and its hooks) is owned by the module state; and engine closures
/// stored on nodes run only inside world actions started by this state's bindings, which reach
/// the module state through the live runtime. Test: `stateClosingWithStoredCallbacksAndAGcThatDispatches`
/// in Tests/ResponderCLITests/TreeSafetyTests.swift.
package final class ModuleState {
    /// Lifetime proof: the runtime owns this module state (`LuaRuntime.moduleState`).
    package unowned(unsafe) let runtime: LuaRuntime
    /// The running thread: the main state, or a task coroutine while `AsyncResume` runs it.
    @exclusivity(unchecked) package var L: OpaquePointer
    package let world: World
    package let handle: StateHandle
    package var options: ScenarioOptions {
        didSet { traceActions = options.trace }
    }
    /// `options.trace`, read on every dispatch.
    private(set) var traceActions: Bool
    /// Registry references of the metatables, indexed by `ObjectKind.rawValue`.
    var metatables: [Int32] = []
    /// How `bad argument` messages name each kind, indexed like `metatables`.
    var kindLabels: [String] = []
    /// The extension plugged into the module (the pattern kit), if any.
    package let moduleExtension: (any ModuleExtension)?
    /// Registry reference of the weak-valued identity cache (lightuserdata → userdata) of every
    /// kind but nodes, and of the nodes with an id (for ``cachedNode(_:)``).
    var cacheRef: Int32 = LUA_NOREF
    /// Registry reference of the weak-valued identity cache of nodes: a list (Lua keeps it in a
    /// table's array part, 16 bytes an entry where an address key takes 24) indexed by the key
    /// each node's userdata owns; the node keeps that key in `Node.hostKey`.
    var nodeCacheRef: Int32 = LUA_NOREF
    /// Node cache keys given back by finalized userdata, to reuse.
    private var freeNodeKeys: [lua_Integer] = []
    /// The largest node cache key handed out so far.
    private var lastNodeKey: lua_Integer = 0
    /// True while `lua_close` runs the last finalizers (see ``retained(_:)``).
    var closing = false
    /// The retains live userdata other than nodes' own (see ``retained(_:)``).
    var ownedRetains = RetainLedger()
    /// The retains live node userdata own, at their cache key - 1 (keys are reused: the array is
    /// as long as the most node userdata alive at once; see ``pushNode(_:)``).
    var nodeRetains: [UnsafeMutableRawPointer?] = []
    /// Registry reference of the node methods table (made with the node metatable).
    var methodsRef: Int32 {
        if nodeMethodsRef == LUA_NOREF { _ = metatable(.node) }
        return nodeMethodsRef
    }
    var nodeMethodsRef: Int32 = LUA_NOREF
    /// How to make the metatables not made yet, indexed like `metatables` (see ``metatable(_:)``).
    var metatableMakers: [((ModuleState) -> Void)?] = []
    /// Built-in `LuaError` type.
    let luaErrorType = ValueType(name: "LuaError", kind: .error)  // not charged: made with the state
    /// Built-in cancellation error type.
    package let cancellationErrorType = ValueType(name: "CancellationError", kind: .error)
    /// A limit error is unwinding through dispatches (kept in the registry).
    package var pendingErrorSet = false
    /// The action depth at which an action counts as top-level for `--trace`: 0, or inside an
    /// async task's body the depth of the action that resumed it (its dispatches are printed too).
    package var topActionDepth = 0

    /// Whether an action ending now is a top-level one for `--trace`.
    package var isTopLevelAction: Bool { world.actionDepth == topActionDepth }
    /// How many `LuaError` values were made (runtime errors in responders, actions, callbacks),
    /// and the last one's message: what `explore` checks after each action.
    /// What is left of the characters the outermost description of a value being made may
    /// take, shared with the values described inside it (nil when none is being made; see
    /// `LuaPayload.describeFields`).
    var describeBudget: Int?
    package var luaErrorCount = 0
    package var lastLuaErrorMessage = ""
    /// The last number ``nextRegistrationNumber()`` gave.
    var lastRegistrationNumber = 0

    init(runtime: LuaRuntime, options: ScenarioOptions, extension ext: (any ModuleExtension)?) {
        self.runtime = runtime
        self.moduleExtension = ext
        self.L = runtime.L
        self.handle = StateHandle(runtime.L)
        self.options = options
        self.traceActions = options.trace
        // the engine's memory counts against the cap, its work against the instruction budget
        self.world = World(
            meter: MemoryMeter(
                sink: luashim_charge_memory,
                context: UnsafeMutableRawPointer(luashim_control_of(runtime.L))),
            work: WorkMeter(sink: luashim_charge, context: runtime.L))
    }

    // MARK: - threads

    /// The module state of the Lua thread `L` that called a binding: bindings work on `self.L`,
    /// so it follows the calling thread (a coroutine calls bindings on its own stack).
    @inline(__always)
    package static func enter(_ L: OpaquePointer?) -> ModuleState {
        let m = LuaRuntime.of(L).moduleState!
        if let L, m.L != L { m.switchTo(L) }
        return m
    }

    /// Points the bindings at another Lua thread.
    func switchTo(_ thread: OpaquePointer) {
        L = thread
        runtime.L = thread
        if handle.L != nil { handle.L = thread }  // nil: the state is closing
    }

    // MARK: - objects

    @inline(__always)
    package func metatable(_ kind: ObjectKind) -> Int32 {
        let ref = metatables[kind.rawValue]
        return ref != LUA_NOREF ? ref : makeMetatableNow(kind)
    }

    /// Makes the metatable of `kind` from its maker (``lazyMetatable(kind:label:fields:index:methods:finalizer:then:)``), once;
    /// LUA_NOREF for a kind without one. The Lua stack is left as it was.
    @inline(never)
    private func makeMetatableNow(_ kind: ObjectKind) -> Int32 {
        guard kind.rawValue < metatableMakers.count, let make = metatableMakers[kind.rawValue] else { return LUA_NOREF }
        metatableMakers[kind.rawValue] = nil
        let top = lua_gettop(L)
        _ = lua_checkstack(L, 16)
        make(self)
        lua_settop(L, top)
        return metatables[kind.rawValue]
    }

    /// Nodes by id for `find("#id")`. An address resolves only through the identity cache: an
    /// entry there means the node's userdata (which retains the node) is alive, so the address
    /// cannot belong to a newer node; every node of a subtree Lua can call `find` on is there
    /// (the mirror keeps the whole tree's userdata reachable).
    package lazy var nodeIndex = NodeIndex { [unowned(unsafe) self] key in
        // [unowned(unsafe) self]: the index is owned by this module state
        self.cachedNode(key)
    }

    /// The node at address `key` when its userdata is alive, else nil.
    func cachedNode(_ key: UnsafeMutableRawPointer) -> Node? {
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(cacheRef))
        defer { luashim_pop(L, 2) }
        guard lua_rawgetp(L, -1, key) == LUA_TUSERDATA, let node = node(at: -1),
            Unmanaged.passUnretained(node).toOpaque() == key
        else { return nil }
        return node
    }

    /// Pushes the userdata for `object`, reusing the cached one so identity holds in Lua.
    ///
    /// Lifetime proof: the userdata owns one retain of its object (`passRetained`), given back by
    /// its `__gc`, which also clears the pointer (a resurrected userdata is then "finalized", see
    /// `finalizedKind`); the identity cache is keyed by the object's address and has weak values,
    /// so an entry exists only while its userdata (and so the object) is alive.
    /// Test: "objects a __gc metamethod resurrects" in scripts/tests/safety/lifetimes_spec.lua.
    package func push(_ object: AnyObject, _ kind: ObjectKind, uservalues: Int32 = 0) {
        let key = Unmanaged.passUnretained(object).toOpaque()
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(cacheRef))
        if lua_rawgetp(L, -1, key) != LUA_TNIL {
            luashim_remove(L, -2)
            return
        }
        luashim_pop(L, 1)
        luashim_push_object(L, retained(object), metatable(kind), uservalues)
        lua_pushvalue(L, -1)
        lua_rawsetp(L, -3, key)
        luashim_remove(L, -2)
    }

    /// Pushes a fresh userdata for `object` without caching (outcomes, contexts).
    // (inlined into `DispatchBinding.finish`, it cost about 550 instructions a dispatch more,
    // callgrind)
    @inline(never)
    func pushFresh(_ object: AnyObject, _ kind: ObjectKind) {
        luashim_push_object(L, retained(object), metatable(kind), 0)
    }

    /// Pushes the cached userdata of `node` if it exists; returns false otherwise (nothing pushed).
    ///
    /// Lifetime proof for the node cache: a key belongs to the userdata it was made for from
    /// then until that userdata's `__gc` gives it back (``nodeFinalized(_:key:)``); the cache has
    /// weak values, so its entry at a key is that userdata while it lives and nil afterwards
    /// (Lua clears weak values before running finalizers). `node.hostKey` names the key of the
    /// node's newest userdata, and the finalizer clears it when it gives that key back (the
    /// node is alive then: the userdata still holds its retain). So the entry at `node.hostKey`
    /// is nil or the node's own userdata; the payload is compared anyway, so that a node pushed
    /// into two Lua states (each with its own keys) only loses identity, never safety.
    /// Test: "objects a __gc metamethod resurrects" in scripts/tests/safety/lifetimes_spec.lua.
    package func pushIfCached(_ node: Node) -> Bool {
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(nodeCacheRef))
        let key = lua_Integer(node.hostKey)
        if key != 0, lua_rawgeti(L, -1, key) == LUA_TUSERDATA,
            let p = lua_touserdata(L, -1)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
            p.pointee == Unmanaged.passUnretained(node).toOpaque()
        {
            luashim_remove(L, -2)
            return true
        }
        lua_settop(L, lua_gettop(L) - (key != 0 ? 2 : 1))
        return false
    }

    /// Pushes the userdata of `node`, the cached one or a new one.
    private func pushNode(_ node: Node) {
        if pushIfCached(node) { return }
        let key: lua_Integer
        if let free = freeNodeKeys.popLast() {
            key = free
        } else {
            lastNodeKey += 1
            key = lastNodeKey
        }
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(nodeCacheRef))
        luashim_push_keyed_object(L, retainedNode(node, key: key), metatable(.node), NodeSlot.count, key)
        lua_pushvalue(L, -1)
        lua_rawseti(L, -3, key)
        luashim_remove(L, -2)
        node.hostKey = Int(key)
        if node.id != nil { cacheForID(node, at: -1) }
    }

    /// Pushes a node `find` returned: a node found by id through the address-keyed cache that
    /// ``cachedNode(_:)`` just read (its entry is still in the processor's cache, where the node
    /// list's may not be), any other as ``push(_:)-(Node?)`` does.
    func pushFound(_ node: Node?) {
        if let node, node.id != nil {
            let key = Unmanaged.passUnretained(node).toOpaque()
            lua_rawgeti(L, luashim_registryindex(), lua_Integer(cacheRef))
            // an entry is a live userdata holding the node at that address (see `cachedNode`)
            if lua_rawgetp(L, -1, key) == LUA_TUSERDATA,
                let p = lua_touserdata(L, -1)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
                p.pointee == key
            {
                luashim_remove(L, -2)
                return
            }
            luashim_pop(L, 2)
        }
        push(node)
    }

    /// Records the userdata at `index` of `node` (which has an id) where ``cachedNode(_:)``
    /// finds it.
    func cacheForID(_ node: Node, at index: Int32) {
        let idx = lua_absindex(L, index)
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(cacheRef))
        lua_pushvalue(L, idx)
        lua_rawsetp(L, -2, Unmanaged.passUnretained(node).toOpaque())
        luashim_pop(L, 1)
    }

    /// Called by a node userdata's `__gc` (with the node still retained): gives back its cache key.
    func nodeFinalized(_ node: Node, key: lua_Integer) {
        guard key != 0 else { return }
        if Int(key) <= nodeRetains.count { nodeRetains[Int(key) - 1] = nil }
        if node.hostKey == Int(key) { node.hostKey = 0 }
        freeNodeKeys.append(key)
    }

    /// The object held by the userdata at `index` when it is of `kind` (the userdata retains it,
    /// see ``push(_:_:uservalues:)``; nil once its finalizer ran).
    @inline(__always)
    package func object<T: AnyObject>(at index: Int32, _ kind: ObjectKind, as: T.Type) -> T? {
        guard let p = luashim_to_object(L, index, metatable(kind)) else { return nil }
        return Unmanaged<T>.fromOpaque(p).takeUnretainedValue()
    }

    /// The node at `index`: a node userdata, or a registration handle that stands for its node
    /// (``nodeHandleKey``).
    package func node(at index: Int32) -> Node? {
        if let node = object(at: index, .node, as: Node.self) { return node }
        return handledNode(at: index)
    }

    /// Registry key of the metatable of registration handles that stand for their node (the
    /// kit's `onAppear`, `onPreferenceChange`, … return one): a userdata whose user value 1 is
    /// the node, so it can be passed wherever a node is expected.
    package static let nodeHandleKey = "responder.nodeHandleMT"

    /// The node a registration handle at `index` stands for, or nil.
    @inline(never)
    package func handledNode(at index: Int32) -> Node? {
        guard lua_type(L, index) == LUA_TUSERDATA else { return nil }
        let i = lua_absindex(L, index)
        guard lua_getmetatable(L, i) != 0 else { return nil }
        lua_getfield(L, luashim_registryindex(), ModuleState.nodeHandleKey)
        let isHandle = lua_rawequal(L, -1, -2) != 0
        luashim_pop(L, 2)
        guard isHandle else { return nil }
        lua_getiuservalue(L, i, 1)
        defer { luashim_pop(L, 1) }
        return object(at: -1, .node, as: Node.self)
    }
    /// Pushes a node (or nil).
    package func push(_ node: Node?) {
        guard let node else {
            lua_pushnil(L)
            return
        }
        pushNode(node)
    }

    /// Pushes a new Lua list (a sequence table) of `nodes`, in order.
    package func push(_ nodes: [Node]) {
        lua_createtable(L, Int32(nodes.count), 0)
        for (i, n) in nodes.enumerated() {
            push(n)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
    }

    /// Pushes a type.
    func push(_ type: ValueType) { push(type, .type) }
}

/// The user-value slots of a node's userdata. They mirror the tree for Lua's collector:
/// holding any node keeps its whole tree reachable, and closures stored with the node that
/// capture their own node form a pure Lua cycle the collector can free.
///
/// Three slots keep the userdata block at 112 bytes (each slot is 16): the parent shares slot 1
/// with the node's data table, which most nodes never get. Slot 1 holds the parent's userdata
/// (or nil) until the node keeps Lua data (a responder's function, kit data, `props`); from
/// then on it holds the data table, and the parent lives in that table at ``parentKey``.
package enum NodeSlot {
    /// The parent's userdata or nil, or the data table (see above).
    static let parentOrData: Int32 = 1
    static let firstChild: Int32 = 2
    static let nextSibling: Int32 = 3
    static let count: Int32 = 3
    /// Where the data table keeps the parent (negative keys: `luaL_ref` never makes them).
    static let parentKey: lua_Integer = -1
    /// Where the data table keeps the `props` table.
    static let propsKey: lua_Integer = -2
    /// ``ModuleState/pushNodeTable(_:_:)`` for the node's `props` table.
    package static let props: Int32 = 4
    /// ``ModuleState/pushNodeTable(_:_:)`` for the node's data table: stored functions (by
    /// `luaL_ref` slot) and string-keyed host data such as the kit's.
    package static let functions: Int32 = 5
}
