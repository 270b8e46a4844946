import CLua
import CLuaShim
import ResponderEngine

/// Shared liveness flag: Swift objects that outlive the state (released after `lua_close`)
/// check it before touching Lua.
final class StateHandle {
    var L: OpaquePointer?
    init(_ L: OpaquePointer) { self.L = L }
}

/// The kinds of Swift objects that live in Lua as userdata, each with its own metatable.
enum ObjectKind: Int, CaseIterable {
    case node, value, type, outcome, trace, publisher, context
    // SPEC §2.9 part A (ControlsBinding): metatables made in `ControlsBinding.install`.
    case state, binding

    /// How `bad argument` messages name the kind.
    var label: String {
        switch self {
        case .node: "node"
        case .value: "value"
        case .type: "type"
        case .outcome: "outcome"
        case .trace: "trace"
        case .publisher: "publisher"
        case .context: "context"
        case .state: "State"
        case .binding: "Binding"
        }
    }
}

/// Everything the `responder` module keeps per Lua state: the engine world, metatables,
/// identity caches and the built-in types.
final class ModuleState {
    unowned(unsafe) let runtime: LuaRuntime
    /// The running thread: the main state, or a task coroutine while `AsyncResume` runs it.
    @exclusivity(unchecked) var L: OpaquePointer
    let world: World
    let handle: StateHandle
    var options: ScenarioOptions
    /// Registry references of the metatables, indexed by `ObjectKind.rawValue`.
    var metatables: [Int32] = []
    /// Registry reference of the weak-valued identity cache (lightuserdata → userdata).
    var cacheRef: Int32 = LUA_NOREF
    /// Registry reference of the node methods table.
    var methodsRef: Int32 = LUA_NOREF
    /// Built-in `LuaError` type.
    let luaErrorType = ValueType(name: "LuaError", kind: .error)
    /// Built-in cancellation error type.
    let cancellationErrorType = ValueType(name: "CancellationError", kind: .error)
    /// A limit error is unwinding through dispatches (kept in the registry).
    var pendingErrorSet = false

    init(runtime: LuaRuntime, options: ScenarioOptions) {
        self.runtime = runtime
        self.L = runtime.L
        self.handle = StateHandle(runtime.L)
        self.options = options
        self.world = World()
    }

    // MARK: - threads

    /// The module state of the Lua thread `L` that called a binding: bindings work on `self.L`,
    /// so it follows the calling thread (a coroutine calls bindings on its own stack).
    @inline(__always)
    static func enter(_ L: OpaquePointer?) -> ModuleState {
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
    func metatable(_ kind: ObjectKind) -> Int32 { metatables[kind.rawValue] }

    /// Pushes the userdata for `object`, reusing the cached one so identity holds in Lua.
    func push(_ object: AnyObject, _ kind: ObjectKind, uservalues: Int32 = 0) {
        let key = Unmanaged.passUnretained(object).toOpaque()
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(cacheRef))
        if lua_rawgetp(L, -1, key) != LUA_TNIL {
            luashim_remove(L, -2)
            return
        }
        luashim_pop(L, 1)
        luashim_push_object(L, Unmanaged.passRetained(object).toOpaque(), metatable(kind), uservalues)
        lua_pushvalue(L, -1)
        lua_rawsetp(L, -3, key)
        luashim_remove(L, -2)
    }

    /// Pushes a fresh userdata for `object` without caching (outcomes, contexts).
    func pushFresh(_ object: AnyObject, _ kind: ObjectKind) {
        luashim_push_object(L, Unmanaged.passRetained(object).toOpaque(), metatable(kind), 0)
    }

    /// Pushes the cached userdata of `object` if it exists; returns false otherwise (nothing pushed).
    func pushIfCached(_ object: AnyObject) -> Bool {
        let key = Unmanaged.passUnretained(object).toOpaque()
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(cacheRef))
        if lua_rawgetp(L, -1, key) != LUA_TNIL {
            luashim_remove(L, -2)
            return true
        }
        luashim_pop(L, 2)
        return false
    }

    /// The object held by the userdata at `index` when it is of `kind`.
    @inline(__always)
    func object<T: AnyObject>(at index: Int32, _ kind: ObjectKind, as: T.Type) -> T? {
        guard let p = luashim_to_object(L, index, metatable(kind)) else { return nil }
        return Unmanaged<T>.fromOpaque(p).takeUnretainedValue()
    }

    func node(at index: Int32) -> Node? { object(at: index, .node, as: Node.self) }
    /// The Swift value for the value userdata at `index` (made on first need, then reused while
    /// it lives), or nil when `index` holds no value.
    func value(at index: Int32) -> Value? {
        guard let cell = luashim_to_value(L, index, metatable(.value)) else { return nil }
        if let live = cell.pointee.live { return Unmanaged<Value>.fromOpaque(live).takeUnretainedValue() }
        let type = Unmanaged<ValueType>.fromOpaque(cell.pointee.type!).takeUnretainedValue()
        let idx = lua_absindex(L, index)
        var cause: Value?
        if lua_getiuservalue(L, idx, 3) == LUA_TUSERDATA { cause = value(at: -1) }
        luashim_pop(L, 1)
        lua_pushvalue(L, idx)
        let payload = LuaPayload(handle: handle, popping: L, hiddenKeys: type === luaErrorType ? ["traceback"] : [])
        let value = Value(type: type, payload: payload, cause: cause)
        cell.pointee.live = Unmanaged.passUnretained(value).toOpaque()
        return value
    }

    /// Whether `index` holds a value userdata, and its kind (no Swift value is made).
    func valueKind(at index: Int32) -> ValueKind? {
        guard let cell = luashim_to_value(L, index, metatable(.value)) else { return nil }
        return Unmanaged<ValueType>.fromOpaque(cell.pointee.type!).takeUnretainedValue().kind
    }

    /// Pushes a new value userdata of `type` whose fields are the table on top of the stack
    /// (popped).
    func pushNewValue(_ type: ValueType, typeAt typeIndex: Int32? = nil) {
        let fields = lua_gettop(L)
        _ = luashim_new_value(L, Unmanaged.passUnretained(type).toOpaque(), metatable(.value))
        lua_pushvalue(L, fields)
        lua_setiuservalue(L, -2, 1)
        if let typeIndex { lua_pushvalue(L, typeIndex) } else { push(type) }
        lua_setiuservalue(L, -2, 2)
        luashim_remove(L, fields)
    }
    func valueType(at index: Int32) -> ValueType? { object(at: index, .type, as: ValueType.self) }

    /// Pushes a node (or nil).
    func push(_ node: Node?) {
        guard let node else { lua_pushnil(L); return }
        push(node, .node, uservalues: NodeSlot.count)
    }

    /// Pushes a new Lua list (a sequence table) of `nodes`, in order.
    func push(_ nodes: [Node]) {
        lua_createtable(L, Int32(nodes.count), 0)
        for (i, n) in nodes.enumerated() {
            push(n)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
    }

    /// Pushes a value (or nil): its own userdata, with the cause the engine gave it.
    func push(_ value: Value?) {
        guard let value else { lua_pushnil(L); return }
        if let payload = value.payload as? LuaPayload {
            payload.pushUserdata(L)
        } else {
            // a value made by the engine itself: give it a userdata of its own fields
            luashim_newtable(L)
            if let fields = value.payload as? FieldsPayload {
                for (k, v) in fields.strings { runtime.pushString(v); lua_setfield(L, -2, k) }
            }
            pushNewValue(value.type)
        }
        if let cause = value.cause {
            push(cause)
            lua_setiuservalue(L, -2, 3)
        }
    }

    /// Pushes a type.
    func push(_ type: ValueType) { push(type, .type) }

    // MARK: - describing arguments

    /// How an argument is named in `bad argument` messages: `event`, `error type`, `node`, `string`…
    func kindName(at index: Int32) -> String {
        if lua_type(L, index) == LUA_TUSERDATA {
            if let v = value(at: index) { return v.kind == .event ? "event" : "error" }
            if let t = valueType(at: index) { return t.kind == .event ? "event type" : "error type" }
            for kind in ObjectKind.allCases where luashim_to_object(L, index, metatable(kind)) != nil {
                return kind.label
            }
        }
        return String(cString: luashim_typename_at(L, index))
    }

    /// `file:line: bad argument #n to 'name' (expected expected, got …)` and LUASHIM_RAISE.
    func argError(_ n: Int, _ name: String, _ expected: String, _ index: Int32) -> Int32 {
        let got = lua_type(L, index) == LUA_TNONE ? "no value" : kindName(at: index)
        return runtime.raise("\(runtime.whereString())bad argument #\(n) to '\(name)' (\(expected) expected, got \(got))")
    }

    /// Raises a located message.
    func fail(_ message: String) -> Int32 {
        runtime.raise("\(runtime.whereString())\(message)")
    }

    /// The innermost script line on the stack, as an engine location.
    func location() -> SourceLocation? {
        runtime.scriptLocation().map { SourceLocation(file: $0.file, line: $0.line) }
    }
}

/// The user-value slots of a node's userdata. They mirror the tree for Lua's collector:
/// holding any node keeps its whole tree reachable, and closures stored here that capture their
/// own node form a pure Lua cycle the collector can free.
enum NodeSlot {
    static let parent: Int32 = 1
    static let firstChild: Int32 = 2
    static let nextSibling: Int32 = 3
    static let props: Int32 = 4
    static let functions: Int32 = 5
    static let count: Int32 = 5
}
