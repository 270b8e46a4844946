import CLua
import CLuaShim
import ResponderEngine

/// `View "Name" { … }` and the node's fields and tree methods (SPEC §2.2).
package enum NodeBinding: ModuleBinding {
    /// Node kinds with constructor behaviour, kept in `Node.host`.
    package enum Kind: Int { case view = 0, eventButton = 1 }

    /// A node userdata's `__gc`: what `WorldBinding.gc` does, and the node's identity cache key
    /// given back (see `ModuleState.pushIfCached(_:)`).
    static let gc: LuaSwiftFunction = { L in
        let m = L.flatMap { LuaRuntime.of($0).moduleState }
        if let L, let m, m.handle.L != nil, m.L != L { m.switchTo(L) }
        if let slot = lua_touserdata(L, 1)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
            let p = slot.pointee
        {
            slot.pointee = nil  // a resurrected userdata is "finalized" from now on
            m?.nodeFinalized(Unmanaged<Node>.fromOpaque(p).takeUnretainedValue(), key: luashim_object_key(L, 1))
            Unmanaged<Node>.fromOpaque(p).release()  // the retain taken by `ModuleState.push`
        }
        return 0
    }

    /// `View "Name"` (a node; call it with a table to add children, `id` and props).
    static let view: LuaSwiftFunction = { L in make(L, "View", .view) }
    /// `EventButton "Title" { event = E{…} | fn }`.
    static let eventButton: LuaSwiftFunction = { L in make(L, "EventButton", .eventButton) }

    static func make(_ L: OpaquePointer?, _ fname: String, _ kind: Kind) -> Int32 {
        let m = state(L)
        let node: Node
        let second = lua_gettop(L) >= 2 ? lua_type(L, 2) : LUA_TNONE
        switch lua_type(L, 1) {
        case LUA_TSTRING:
            let text = m.runtime.string(at: 1)!
            if kind == .view, text.isEmpty || text.contains("#") {
                // a selector reads `A#b` as the name A and the id b: such a name is never found
                return m.fail(
                    "bad argument #1 to 'View' (name expected: not empty and without '#', which starts the id in a "
                        + "selector; got \"\(TextClip.clip(text, to: TextClip.column))\"; give an id as View \"Name\" { id = \"…\" })"
                )
            }
            node = Node(name: kind == .view ? text : fname, meter: m.world.meter)
            if kind != .view {
                m.pushNodeTable(node, NodeSlot.props)
                m.runtime.pushString(text)
                lua_setfield(L, -2, "title")
                luashim_pop(L, 1)
            }
        case LUA_TTABLE where kind == .view:
            // `View {}`: a node needs a name, and `View "Name" { … }` is easy to mistype
            return m.fail("bad argument #1 to 'View' (name (string) expected, got table; write View \"Name\" { … })")
        case LUA_TTABLE:
            node = Node(name: fname, meter: m.world.meter)
        default:
            return m.argError(1, fname, "name (string)", 1)
        }
        node.host = kind.rawValue
        m.push(node)
        if lua_type(L, 1) == LUA_TTABLE {
            lua_pushvalue(L, 1)
            return configure(m, node, lua_gettop(L) - 1, lua_gettop(L))
        }
        // `View("Name", { … })`, the call form of `View "Name" { … }`
        if second == LUA_TTABLE {
            lua_pushvalue(L, 2)
            return configure(m, node, lua_gettop(L) - 1, lua_gettop(L))
        }
        if second != LUA_TNONE && second != LUA_TNIL {
            return m.argError(2, fname, "table of children and properties", 2)
        }
        return 1
    }

    /// `node { children…, id = "x", key = value }` → the node.
    static let call: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "call", "node", 1) }
        guard lua_type(L, 2) == LUA_TTABLE else { return m.argError(1, node.name, "table", 2) }
        return configure(m, node, 1, 2)
    }

    package static func configure(_ m: ModuleState, _ node: Node, _ nodeIndex: Int32, _ t: Int32) -> Int32 {
        let L = m.L
        // children first, in order
        let n = Int(lua_rawlen(L, t))
        if n > 0 {
            for i in 1...n {
                lua_rawgeti(L, t, lua_Integer(i))
                guard let child = m.node(at: -1) else {
                    return m.fail("bad child #\(i) in \(node.name) { … } (node expected, got \(m.kindName(at: -1)))")
                }
                luashim_pop(L, 1)
                if let failure = attach(m, child, to: node, at: nil) { return failure }
            }
        }
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            if lua_type(L, -2) == LUA_TNUMBER, lua_isinteger(L, -2) != 0 {
                let k = luashim_tointeger(L, -2, nil)
                if k >= 1 && k <= n {
                    luashim_pop(L, 1)
                    continue
                }
                // a node past a hole in the list (`{ [1] = A, [3] = C }`) is a child gone
                // astray, not a prop (it became `props[3]`: found by an acceptance probe)
                if m.node(at: -1) != nil {
                    return m.fail(
                        "bad child #\(k) in \(node.name) { … } (children are the table's sequence, #1 to #\(n); "
                            + "a node at \(k) follows a hole)")
                }
            }
            if lua_type(L, -2) == LUA_TSTRING, let key = m.runtime.string(at: -2) {
                if key == "id" {
                    guard lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER else {
                        return m.fail(
                            "bad field 'id' in \(node.name) { … } (string expected, got \(m.kindName(at: -1)))")
                    }
                    let id = m.runtime.string(at: -1) ?? ""
                    // (an empty id prints as `Name#`, and no selector finds it or one with a '#')
                    guard !id.isEmpty, !id.contains("#") else {
                        return m.fail(
                            "bad field 'id' in \(node.name) { … } (id expected: not empty and without '#'; got \"\(TextClip.clip(id, to: TextClip.column))\")"
                        )
                    }
                    node.id = id
                    m.nodeIndex.register(node)
                    m.cacheForID(node, at: nodeIndex)
                    luashim_pop(L, 1)
                    continue
                }
                if key == "event", node.host == Kind.eventButton.rawValue {
                    if let failure = TapBinding.setButtonEvent(m, node, at: -1) { return failure }
                    luashim_pop(L, 1)
                    continue
                }
                if let ext = m.moduleExtension, let status = ext.configureField(m, node, key, at: lua_gettop(L)) {
                    if status != 0 { return status }
                    luashim_pop(L, 1)
                    continue
                }
            }
            // a prop
            m.pushNodeTable(node, NodeSlot.props)
            lua_pushvalue(L, -3)
            lua_pushvalue(L, -3)
            lua_rawset(L, -3)
            luashim_pop(L, 2)
        }
        if node.host == Kind.eventButton.rawValue && node.tapActions.isEmpty {
            return m.fail(
                "EventButton { … } needs an event: EventButton \"Title\" { event = E{…} } (or a function returning one)"
            )
        }
        lua_pushvalue(L, nodeIndex)
        return 1
    }

    /// Moves `child` under `parent` in the engine and in the userdata mirror.
    static func attach(_ m: ModuleState, _ child: Node, to parent: Node, at position: Int?) -> Int32? {
        var steps = 0
        if child === parent || (!child.children.isEmpty && parent.isDescendant(of: child, steps: &steps)) {
            return m.fail("cannot add \(child) to \(parent): would create a cycle")
        }
        // the walk to the root (twice: the engine checks too), the old siblings searched and the
        // new ones shifted by an insertion: charged before anything changes, so a spent budget
        // stops the addition cleanly (appending shifts nothing)
        let shifted = position.map { max(0, parent.children.count - $0) } ?? 0
        let work = 2 * steps + shifted + (child.parent?.children.count ?? 0)
        if work > 64 && m.runtime.charge(work) { return 0 }
        m.mirrorUnlink(child)
        do {
            try parent.add(child, at: position)
        } catch {
            m.mirrorLink(child, under: child.parent ?? parent)
            return DispatchBinding.raise(m, error)
        }
        m.mirrorLink(child, under: parent)
        // a limit met in a preference callback the move ran (kept by the hook): raised here
        if m.pendingErrorSet { return DispatchBinding.raise(m, LuaCallError()) }
        return nil
    }

    static let add: LuaSwiftFunction = { L in
        let m = state(L)
        guard let parent = m.node(at: 1) else { return m.argError(0, "add", "node", 1) }
        guard let child = m.node(at: 2) else { return m.argError(1, "add", "node", 2) }
        var position: Int?
        if !luashim_isnoneornil(L, 3) {
            var ok: Int32 = 0
            let p = luashim_tointeger(L, 3, &ok)
            guard ok != 0, p >= 1, p <= parent.children.count + 1 else {
                return m.argError(2, "add", "position (1..\(parent.children.count + 1))", 3)
            }
            position = Int(p) - 1
        }
        if let failure = attach(m, child, to: parent, at: position) { return failure }
        lua_settop(L, 1)
        return 1
    }

    static let remove: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "remove", "node", 1) }
        m.mirrorUnlink(node)
        // an action: a strict violation or a limit in a disappear handler or a preference
        // callback it runs aborts `remove` (the node is removed all the same)
        do {
            try m.world.performAction { node.remove() }
            if m.pendingErrorSet { throw LuaCallError() }
        } catch {
            return DispatchBinding.raise(m, error)
        }
        lua_settop(L, 1)
        return 1
    }

    /// Raises for text that is not a selector SPEC §2.2 knows (`Name`, `#id`, `Name#id`): a CSS
    /// habit such as `.cls`, `A B` or `[x]` must not quietly find nothing.
    static func selectorError(_ m: ModuleState, _ fname: String, _ sel: String) -> Int32 {
        m.fail("bad argument #1 to '\(fname)' (selector expected: Name, #id or Name#id; got \"\(sel)\")")
    }

    /// A selector whose name holds a space or one of `>[],:`, which `View` accepts in a name
    /// (`View "Save Button"`): `Name`, `#id` or `Name#id` all the same (not empty, not starting
    /// with `.`, `*` or `[`, at most one `#` with an id after it). Such text is read as a name
    /// only when it finds a node; otherwise it is the CSS habit `selectorError` refuses.
    static func isNameWithSeparators(_ sel: String) -> Bool {
        guard let first = sel.utf8.first,
            first != UInt8(ascii: "."), first != UInt8(ascii: "*"), first != UInt8(ascii: "[")
        else { return false }
        guard let hash = sel.utf8.firstIndex(of: UInt8(ascii: "#")) else { return true }
        let id = sel.utf8[sel.utf8.index(after: hash)...]
        return !id.isEmpty && !id.contains(UInt8(ascii: "#"))
    }

    /// `Name`, `#id` or `Name#id`: not empty, at most one `#` with an id after it, and a name that
    /// neither starts with `.` or `*` nor holds a space or one of `>[],:` (read byte by byte: this
    /// runs at every `find`).
    static func isSelector(_ sel: String) -> Bool {
        var text = sel
        return text.withUTF8 { isSelector($0) }
    }

    private static func isSelector(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: ".") || first == UInt8(ascii: "*") { return false }
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "#"):
                // the rest is the id: not empty, no second '#'
                let id = bytes[(i + 1)...]
                return !id.isEmpty && !id.contains(UInt8(ascii: "#"))
            case UInt8(ascii: " "), UInt8(ascii: ">"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","),
                UInt8(ascii: ":"):
                return false
            default:
                i += 1
            }
        }
        return true
    }

    static let find: LuaSwiftFunction = { L in
        selectorCall(L, "find") { m, node, selector in
            m.pushFound(node.find(selector, index: m.nodeIndex, work: m.world.work))
        }
    }

    static let findAll: LuaSwiftFunction = { L in
        selectorCall(L, "findAll") { m, node, selector in m.push(node.findAll(selector, work: m.world.work)) }
    }

    /// `node:fname(selector)`: checks both arguments, then `push` pushes the one result.
    @inline(__always)
    private static func selectorCall(
        _ L: OpaquePointer?, _ fname: String,
        _ push: (ModuleState, Node, String) -> Void
    ) -> Int32 {
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, fname, "node", 1) }
        guard lua_type(L, 2) == LUA_TSTRING, let selector = m.runtime.string(at: 2) else {
            return m.argError(1, fname, "selector (string)", 2)
        }
        if isSelector(selector) {
            push(m, node, selector)
            return 1
        }
        // a name with a space or `>[],:` (`View "Save Button"`) when a node has it: else refused
        guard isNameWithSeparators(selector) else { return selectorError(m, fname, selector) }
        push(m, node, selector)
        let none = lua_type(L, -1) == LUA_TNIL || (lua_type(L, -1) == LUA_TTABLE && lua_rawlen(L, -1) == 0)
        return none ? selectorError(m, fname, selector) : 1
    }

    static let path: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else { return m.argError(0, "path", "node", 1) }
        var depth = 0
        var up = node.parent
        while let p = up {
            depth += 1
            up = p.parent
        }
        if m.runtime.charge(depth) { return 0 }
        m.runtime.pushString(node.path())
        return 1
    }

    /// The fields every node has, as `get` answers them (the module's extension adds more through
    /// `ModuleExtension.pushProperty`). Keep in step with `get`: the editor definition file is
    /// tested against this list, and the test reads each name on a node.
    static let fieldNames = ["name", "id", "parent", "children", "props", "mounted"]

    static let get: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1), lua_type(L, 2) == LUA_TSTRING, let key = m.runtime.string(at: 2) else {
            if let kind = m.finalizedKind(at: 1) { return m.finalizedError(kind) }
            lua_pushnil(L)
            return 1
        }
        switch key {
        case "name": m.runtime.pushString(node.name)
        case "id": if let id = node.id { m.runtime.pushString(id) } else { lua_pushnil(L) }
        case "parent": m.push(node.parent)
        case "children":
            if m.runtime.charge(node.children.count) { return 0 }
            m.push(node.children)
        case "props": m.pushNodeTable(node, NodeSlot.props)
        case "mounted": lua_pushboolean(L, node.isMounted ? 1 : 0)
        default:
            if m.moduleExtension?.pushProperty(m, node, key) != true && !ResponderModule.lazyMethod(m, key) {
                if let guess = ResponderModule.nearestMethod(m, to: key) {
                    // a likely misspelling: calling it explains itself (reading it is not nil)
                    m.runtime.pushString("\(node.name) has no method '\(key)' (did you mean '\(guess)'?)")
                    luashim_push_swift_closure(L, Suggestions.raiseUpvalue, 1)
                } else {
                    lua_pushnil(L)
                }
            }
        }
        return 1
    }

    static let newindex: LuaSwiftFunction = { L in
        let m = state(L)
        let key = m.runtime.string(at: 2) ?? "?"
        if let node = m.node(at: 1), let hint = m.moduleExtension?.assignmentHint(m, node, key) {
            return m.fail("cannot assign field '\(key)' of a node (\(hint))")
        }
        if key == "props" {
            return m.fail("cannot assign field 'props' of a node (assign its fields: node.props.name = value)")
        }
        return m.fail("cannot assign field '\(key)' of a node (use node.props.\(key) for your own data)")
    }

    static let tostring: LuaSwiftFunction = { L in
        let m = state(L)
        guard let node = m.node(at: 1) else {
            m.pushPlaceholderName(at: 1, .node)
            return 1
        }
        m.runtime.pushString(node.description)
        return 1
    }
}
