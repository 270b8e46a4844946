import CLua
import CLuaShim
import ResponderEngine
import ResponderLua

/// SPEC §2.9 part B: environment and preferences, notifications and observation, appear and
/// disappear, async actions on a virtual clock.
///
/// The behaviour is written in Lua (`EnvironmentPrelude`), loaded once per state; this file
/// gives it the Swift helpers it needs (node data, document-order traversal, protected calls
/// that report errors from a node, coroutine resumption) and wires the world's hooks to it.
enum EnvironmentBinding: ModuleBinding {
    /// Module functions (also globals). The kit's functions are Lua functions set by `install`.
    static let functions: [(String, LuaSwiftFunction)] = []
    /// Methods added to every node. The kit's methods are Lua functions set by `install`.
    static let nodeMethods: [(String, LuaSwiftFunction)] = []

    /// The key of a node's kit table inside its function table.
    static let kitKey = "responder.environmentKit"

    /// Called once per state after the core module is installed (metatables, hooks).
    /// Module functions the kit provides (also globals).
    static let functionNames = [
        "Preference", "post", "AsyncButton", "sleep", "advance", "now",
        "after", "every", "task",
    ]
    /// Node methods the kit provides.
    static let methodNames = [
        "environment", "env", "preference", "preferenceValue", "onPreferenceChange",
        "onReceive", "observe", "onAppear", "onDisappear",
        "onAsyncTaskStarted", "onAsyncTaskEnded", "onAsyncTaskChanged",
    ]

    /// Nothing happens at state creation: the kit (a Lua prelude that takes far longer to compile
    /// than a whole state takes to create) is loaded the first time one of its names is used
    /// (`ResponderModule.lazyName` / `lazyMethod` call `realFunction`).
    static func install(_ m: ModuleState) {}

    /// Registry key of the flag set once a script used a name the prelude provides.
    static let usedKey = "responder.kitUsed"

    /// Registry key of the prelude's `makeHandle(kind, remove)`.
    static let handleMakerKey = "responder.kit.makeHandle"
    /// Registry key of the prelude's `nodeHandle(kind, node, remove)`.
    static let nodeHandleMakerKey = "responder.kit.makeNodeHandle"

    /// Loads the prelude unless it is loaded.
    static func ensureLoaded(_ m: ModuleState) {
        let L = m.L
        lua_getfield(L, luashim_registryindex(), "responder.kitLoaded")
        let loaded = lua_toboolean(L, -1) != 0
        luashim_pop(L, 1)
        if !loaded {
            lua_pushboolean(L, 1)
            lua_setfield(L, luashim_registryindex(), "responder.kitLoaded")
            loadPrelude(m)
        }
    }

    /// Pushes the kit's function `name` (kind "f" for module functions, "m" for node methods),
    /// loading the kit first if needed. On failure pushes a message and returns false.
    static func realFunction(_ m: ModuleState, _ kind: String, _ name: String) -> Bool {
        let L = m.L
        ensureLoaded(m)
        // (explore offers `advance` once a script used a name of the kit's prelude: not when
        // only a registration handle loaded it)
        lua_pushboolean(L, 1)
        lua_setfield(L, luashim_registryindex(), usedKey)
        lua_getfield(L, luashim_registryindex(), "responder.kitReal")
        if lua_type(L, -1) == LUA_TTABLE {
            lua_getfield(L, -1, kind + "." + name)
            luashim_remove(L, -2)
        }
        guard lua_type(L, -1) == LUA_TFUNCTION else {
            luashim_pop(L, 1)
            m.runtime.pushString("the responder kit could not provide '\(name)'")
            return false
        }
        return true
    }

    /// Loads the prelude; its functions go where the lazy names are looked up (a global the
    /// script has set keeps the script's value).
    static func loadPrelude(_ m: ModuleState) {
        let L = m.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }

        // M: the module table
        lua_getfield(L, luashim_registryindex(), "_LOADED")
        lua_getfield(L, -1, "responder")
        luashim_remove(L, -2)
        let module = lua_gettop(L)
        // its globals (every part's _ENV): pristine library functions made now, whatever the
        // script replaced
        guard luashim_push_pristine_env(L) == LUA_OK else {
            Console.error("internal error: the responder kit's environment could not be made\n")
            return
        }
        let environment = lua_gettop(L)
        for chunk in EnvironmentPrelude.chunks {
            guard m.runtime.loadHostChunk(chunk.source, chunkname: chunk.name) == nil else {
                Console.error("internal error: the responder kit prelude does not compile\n")
                return
            }
            lua_pushvalue(L, environment)
            _ = lua_setupvalue(L, -2, 1)
        }
        if let failure = m.runtime.call(Int32(EnvironmentPrelude.chunks.count - 1), 1) {
            Console.error("internal error: the responder kit prelude failed: \(failure.message)\n")
            return
        }
        // K: the Swift helpers
        let helpers: [(String, LuaSwiftFunction)] = [
            ("isNode", isNode), ("kit", kit), ("subtree", subtree), ("invoke", invoke),
            ("resume", AsyncResume.resume), ("report", report), ("isCancellation", isCancellation),
            ("kindName", kindName), ("setLoading", setLoading), ("raise", raise),
            ("nodeHandle", NodeHandles.make), ("handleNode", NodeHandles.node),
            ("asyncButton", ControlsBinding.asyncButton),
            ("traceBegin", PostTrace.begin), ("traceStep", PostTrace.step), ("traceEnd", PostTrace.end),
        ]
        lua_createtable(L, 0, Int32(helpers.count))
        for (name, fn) in helpers {
            luashim_push_swift_function(L, fn)
            lua_setfield(L, -2, name)
        }
        lua_pushvalue(L, module)
        if let failure = m.runtime.call(2, 1) {
            Console.error("internal error: the responder kit prelude failed: \(failure.message)\n")
            return
        }
        let kitTable = lua_gettop(L)

        // the real functions, for the stubs; stubs still in place are replaced
        luashim_newtable(L)
        let real = lua_gettop(L)
        func isUnset(_ table: Int32, _ name: String) -> Bool {
            m.runtime.pushString(name)
            let unset = lua_rawget(L, table) == LUA_TNIL
            luashim_pop(L, 1)
            return unset
        }
        luashim_pushglobaltable(L)
        let globals = lua_gettop(L)
        lua_getfield(L, kitTable, "functions")
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            let name = m.runtime.string(at: -2) ?? ""
            lua_pushvalue(L, -1)
            lua_setfield(L, real, "f." + name)
            if isUnset(module, name) {
                m.runtime.pushString(name)
                lua_pushvalue(L, -2)
                lua_rawset(L, module)
            }
            if isUnset(globals, name) {
                m.runtime.pushString(name)
                lua_pushvalue(L, -2)
                lua_rawset(L, globals)
            }
            luashim_pop(L, 1)
        }
        lua_settop(L, real)
        lua_pushvalue(L, real)
        lua_setfield(L, luashim_registryindex(), "responder.kitReal")

        // node methods: the methods table is the first upvalue of the node metatable's __index
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(m.metatable(.node)))
        lua_getfield(L, -1, "__index")
        if lua_getupvalue(L, -1, 1) != nil, lua_type(L, -1) == LUA_TTABLE {
            let methods = lua_gettop(L)
            lua_getfield(L, kitTable, "methods")
            lua_pushnil(L)
            while lua_next(L, -2) != 0 {
                let name = m.runtime.string(at: -2) ?? ""
                lua_pushvalue(L, -1)
                lua_setfield(L, real, "m." + name)
                lua_setfield(L, methods, name)
            }
        }
        lua_settop(L, kitTable)

        // the metatable of handles that stand for their node
        lua_getfield(L, kitTable, "nodeHandleMT")
        lua_setfield(L, luashim_registryindex(), ModuleState.nodeHandleKey)

        // handles made for Swift registrations (onChange, on.*)
        lua_getfield(L, kitTable, "makeHandle")
        lua_setfield(L, luashim_registryindex(), handleMakerKey)
        lua_getfield(L, kitTable, "makeNodeHandle")
        lua_setfield(L, luashim_registryindex(), nodeHandleMakerKey)

        // hooks
        lua_getfield(L, kitTable, "hooks")
        lua_getfield(L, -1, "liveTasks")
        lua_setfield(L, luashim_registryindex(), "responder.liveTasks")
        func ref(_ name: String) -> Int32 {
            lua_getfield(L, -1, name)
            return luaL_ref(L, luashim_registryindex())
        }
        let appearRef = ref("appear")
        let disappearRef = ref("disappear")
        let structureRef = ref("structure")
        let resetRef = ref("reset")
        let world = m.world
        let previousAppear = world.appearHook
        // [unowned(unsafe) m] in the hooks: the world is owned by m (proof at `ModuleState`)
        world.appearHook = { [unowned(unsafe) m] node in
            try previousAppear?(node)
            guard m.hasKit(node) else { return }
            if !m.callHook(appearRef, node, moving: m.world.isMoving, keepingError: true) {
                throw LuaCallError()
            }
        }
        let previousDisappear = world.disappearHook
        world.disappearHook = { [unowned(unsafe) m] node in
            previousDisappear?(node)
            // (a failure that unwinds, a strict abort or a limit, is kept: `remove` raises it)
            if m.hasKit(node) {
                _ = m.callHook(disappearRef, node, moving: m.world.isMoving, keepingError: true)
            }
        }
        let previousStructure = world.structureDidChange
        world.structureDidChange = { [unowned(unsafe) m] parent in
            previousStructure?(parent)
            var node: Node? = parent
            while let current = node {
                if m.hasKit(current) {
                    _ = m.callHook(structureRef, parent, keepingError: true)
                    return
                }
                node = current.parent
            }
        }
        let previousReset = world.resetHook
        world.resetHook = { [unowned(unsafe) m] in
            previousReset?()
            guard m.handle.L != nil else { return }
            _ = m.callHook(resetRef, nil)
        }
    }
}
