import CLua
import CLuaShim
import ResponderEngine

/// The `responder` Lua module (SPEC §2): installed into a runtime, its names also global.
public enum ResponderModule {
    /// The module's version (`responder.version`, `responder --version`).
    public static let version = "0.1.0"

    /// The Lua release the module was built against, e.g. `Lua 5.4.4`.
    public static let luaRelease = "Lua \(LUA_VERSION_MAJOR).\(LUA_VERSION_MINOR).\(LUA_VERSION_RELEASE)"

    /// Module functions, also set as globals.
    static let functions: [(String, LuaSwiftFunction)] = [
        ("Event", TypeBinding.event),
        ("Error", TypeBinding.error),
        ("AlertableError", TypeBinding.alertableError),
        ("View", NodeBinding.view),
        ("EventButton", NodeBinding.eventButton),
        ("mount", DispatchBinding.mount),
        ("tap", DispatchBinding.tap),
        ("reset", WorldBinding.reset),
        ("warnings", WorldBinding.warnings),
        ("clearWarnings", WorldBinding.clearWarnings),
        ("lastTrace", WorldBinding.lastTrace),
        ("alert", WorldBinding.alert),
        ("dismissAlert", WorldBinding.dismissAlert),
        ("mounted", WorldBinding.mounted),
    ]

    static let nodeMethods: [(String, LuaSwiftFunction)] = [
        ("add", NodeBinding.add),
        ("remove", NodeBinding.remove),
        ("find", NodeBinding.find),
        ("findAll", NodeBinding.findAll),
        ("path", NodeBinding.path),
        ("trigger", DispatchBinding.trigger),
        ("report", DispatchBinding.report),
        ("receiveEvent", ResponderBinding.receiveEvent),
        ("handleEvent", ResponderBinding.handleEvent),
        ("transformEvent", ResponderBinding.transformEvent),
        ("receiveError", ResponderBinding.receiveError),
        ("handleError", ResponderBinding.handleError),
        ("transformError", ResponderBinding.transformError),
        ("catchError", ResponderBinding.catchError),
        ("triggers", ResponderBinding.triggers),
        ("reports", ResponderBinding.reports),
        ("handleAlertErrors", ResponderBinding.handleAlertErrors),
        ("responders", ResponderBinding.responders),
        ("removeResponder", ResponderBinding.removeResponder),
        ("safetyLevel", ResponderBinding.safetyLevel),
        ("requireExplicitResponders", ResponderBinding.requireExplicitResponders),
        ("publisher", PublishBinding.publisher),
        ("subscribe", PublishBinding.subscribe),
        ("onTapGesture", TapBinding.onTapGesture),
    ]

    /// The function named `name` in `list`. A linear search: lists are short and each name is
    /// looked up once per state; a `[String: LuaSwiftFunction]` instead costs every process
    /// about 0.3 M instructions (a tenth of an empty run) to instantiate its type at run time.
    static func find(_ name: String, in list: [(String, LuaSwiftFunction)]) -> LuaSwiftFunction? {
        for (key, fn) in list where key == name { return fn }
        return nil
    }

    /// `__index` of the module table (upvalue true) and of the global table (false): creates a
    /// module function on first use and stores it, so later uses find it directly.
    static let lazyName: LuaSwiftFunction = { L in
        let m = ModuleState.enter(L)
        guard lua_type(L, 2) == LUA_TSTRING, let name = m.runtime.string(at: 2) else {
            lua_pushnil(L)
            return 1
        }
        if let type = builtInTypes(m).first(where: { $0.name == name })?.type {
            m.push(type)
        } else if let fn = find(name, in: functions) ?? m.moduleExtension.flatMap({ find(name, in: $0.functions) }) {
            luashim_push_swift_function(L, fn)
        } else if name == "explore" {
            guard ExploreAPI.push(m) else { return LUASHIM_RAISE }
        } else if let ext = m.moduleExtension, ext.luaFunctionNames.contains(name) {
            guard ext.pushLuaFunction(m, "f", name) else { return LUASHIM_RAISE }
        } else {
            lua_pushnil(L)
            return 1
        }
        lua_pushvalue(L, 2)
        lua_pushvalue(L, -2)
        lua_rawset(L, 1)
        return 1
    }

    /// The built-in error types, by the names they have in Lua (made with the state, revealed
    /// like the module's functions).
    static func builtInTypes(_ m: ModuleState) -> [(name: String, type: ValueType)] {
        [("LuaError", m.luaErrorType), ("CancellationError", m.cancellationErrorType)]
    }

    /// The node method `name` most likely misspells, if any.
    static func nearestMethod(_ m: ModuleState, to name: String) -> String? {
        var names = nodeMethods.map(\.0)
        if let ext = m.moduleExtension { names += ext.methods.map(\.0) + ext.luaMethodNames }
        return Suggestions.nearest(to: name, in: names)
    }

    /// A node method on first use: stored in the methods table and returned. Pushes it and
    /// returns true, or pushes nothing and returns false.
    static func lazyMethod(_ m: ModuleState, _ name: String) -> Bool {
        let L = m.L
        if let fn = find(name, in: nodeMethods) ?? m.moduleExtension.flatMap({ find(name, in: $0.methods) }) {
            luashim_push_swift_function(L, fn)
        } else if let ext = m.moduleExtension, ext.luaMethodNames.contains(name) {
            guard ext.pushLuaFunction(m, "m", name) else {
                luashim_pop(L, 1)
                return false
            }
        } else {
            return false
        }
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(m.methodsRef))
        m.runtime.pushString(name)
        lua_pushvalue(L, -3)
        lua_rawset(L, -3)
        luashim_pop(L, 1)
        return true
    }

    /// Creates every lazily created name now: module functions in the module table, the
    /// public ones also as globals (a name the script has set keeps the script's value), the
    /// extension's (kit's) functions and every node method; then removes the lazy metatables, so
    /// the global table and the module table look as if everything had been there from the start.
    static func materialize(_ m: ModuleState) {
        let L = m.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        luashim_pushglobaltable(L)
        let globals = lua_gettop(L)
        LuaRuntime.pushLoadedTable(L)
        lua_getfield(L, -1, "responder")
        let module = lua_gettop(L)
        /// Sets `name` in `table` where it is unset, to what `push` pushes (false: it pushed a
        /// message instead, and nothing is set).
        func setIfUnset(_ name: String, in table: Int32, _ push: () -> Bool) {
            m.runtime.pushString(name)
            let unset = lua_rawget(L, table) == LUA_TNIL
            luashim_pop(L, 1)
            guard unset else { return }
            if push() {
                m.runtime.pushString(name)
                lua_pushvalue(L, -2)
                lua_rawset(L, table)
            }
            luashim_pop(L, 1)
        }
        // the module's own functions win over an extension's of the same name
        let extensionFunctions = (m.moduleExtension?.functions ?? []).filter { find($0.0, in: functions) == nil }
        for (name, fn) in functions + extensionFunctions {
            for table in [module, globals] {
                setIfUnset(name, in: table) {
                    luashim_push_swift_function(L, fn)
                    return true
                }
            }
        }
        for (name, type) in builtInTypes(m) {
            for table in [module, globals] {
                setIfUnset(name, in: table) {
                    m.push(type)
                    return true
                }
            }
        }
        let methodNames =
            nodeMethods.map(\.0) + (m.moduleExtension?.methods.map(\.0) ?? [])
            + (m.moduleExtension?.luaMethodNames ?? [])
        for name in methodNames { if lazyMethod(m, name) { luashim_pop(L, 1) } }
        // the extension's Lua functions: loading them sets them where unset in both tables
        for name in m.moduleExtension?.luaFunctionNames ?? [] {
            _ = m.moduleExtension!.pushLuaFunction(m, "f", name)  // the function, or a message
            luashim_pop(L, 1)
        }
        // the `explore` table, in both tables where unset (it is made lazily like the functions;
        // when it cannot be made, the message saying why is popped)
        for table in [module, globals] { setIfUnset("explore", in: table) { ExploreAPI.push(m) } }
        _ = luashim_drop_lazy_metatable(L, module)
        _ = luashim_drop_lazy_metatable(L, globals)
    }

    /// Creates every lazily created name now (the REPL does, so completion lists them).
    public static func materializeNames(_ runtime: LuaRuntime) {
        if let m = runtime.moduleState { materialize(m) }
    }

    /// The reveal function of the lazy metatables (see `luashim_set_lazy_reveal`): the first
    /// reflective look at the global or the module table (`getmetatable`, `setmetatable`,
    /// `next`, `pairs`, `rawget`) creates everything first.
    static let reveal: LuaSwiftFunction = { L in
        materialize(ModuleState.enter(L))
        return 0
    }

    /// Installs the module table as `require "responder"` and copies its public names to globals.
    public static func install(into runtime: LuaRuntime, options: ScenarioOptions) {
        install(into: runtime, options: options, extension: nil)
    }

    /// Installs the module with an extension (the pattern kit) plugged in (see ``ModuleExtension``).
    package static func install(
        into runtime: LuaRuntime, options: ScenarioOptions,
        extension ext: (any ModuleExtension)?
    ) {
        let m = ModuleState(runtime: runtime, options: options, extension: ext)
        runtime.moduleState = m
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }

        // identity caches: weak values
        /// A new table with weak values, referenced from the registry.
        func weakValuedTable() -> Int32 {
            luashim_newtable(L)
            luashim_newtable(L)
            runtime.pushString("v")
            lua_setfield(L, -2, "__mode")
            lua_setmetatable(L, -2)
            return luaL_ref(L, luashim_registryindex())
        }
        m.cacheRef = weakValuedTable()
        m.nodeCacheRef = weakValuedTable()

        // room for the module's kinds and an extension's first few
        let kinds = ObjectKind.firstExtensionValue + 8
        m.metatables = Array(repeating: LUA_NOREF, count: kinds)
        m.kindLabels = Array(repeating: "", count: kinds)
        m.metatableMakers = Array(repeating: nil, count: kinds)
        // the metatables are made on first need (see `ModuleState.lazyMetatable`)
        m.lazyMetatable(
            kind: .node,
            fields: [
                ("__newindex", NodeBinding.newindex), ("__tostring", NodeBinding.tostring),
                ("__call", NodeBinding.call), ("__gc", NodeBinding.gc),
            ],
            index: NodeBinding.get, methods: [("add", NodeBinding.add)], finalizer: false
        ) { m in
            // the node methods table (the first upvalue of the node metatable's __index): methods
            // are put there on first use (see `lazyMethod`), which keeps state creation cheap
            let L = m.L
            lua_rawgeti(L, luashim_registryindex(), lua_Integer(m.metatables[ObjectKind.node.rawValue]))
            lua_getfield(L, -1, "__index")
            _ = lua_getupvalue(L, -1, 1)
            m.nodeMethodsRef = luaL_ref(L, luashim_registryindex())
            luashim_pop(L, 2)
        }
        m.lazyMetatable(
            kind: .value,
            fields: [
                ("__newindex", ValueBinding.newindex), ("__tostring", ValueBinding.tostring),
                ("__pairs", ValueBinding.pairs), ("__eq", ValueBinding.eq),
            ],
            index: ValueBinding.index, finalizer: false)
        m.lazyMetatable(
            kind: .type,
            fields: [
                ("__call", TypeBinding.call), ("__tostring", TypeBinding.tostring),
                ("__newindex", TypeBinding.newindex),
            ],
            index: TypeBinding.get, methods: [("is", TypeBinding.isMethod)])
        m.lazyMetatable(
            kind: .outcome,
            fields: [
                ("__tostring", DispatchBinding.outcomeToString), ("__pairs", DispatchBinding.outcomePairs),
                ("__newindex", ModuleState.readOnlyNewindex),
            ],
            index: DispatchBinding.outcomeIndex)
        m.lazyMetatable(
            kind: .trace,
            fields: [
                ("__tostring", TraceBinding.tostring), ("__len", TraceBinding.len), ("__pairs", TraceBinding.pairs),
                ("__newindex", ModuleState.readOnlyNewindex),
            ],
            index: TraceBinding.index)
        m.lazyMetatable(
            kind: .publisher,
            fields: [
                ("__call", PublishBinding.call), ("__tostring", PublishBinding.tostring),
                ("__newindex", ModuleState.readOnlyNewindex),
            ],
            index: PublishBinding.get, methods: [("publish", PublishBinding.publishMethod)])
        m.lazyMetatable(
            kind: .context,
            fields: [("__tostring", DispatchBinding.contextToString), ("__newindex", ModuleState.readOnlyNewindex)],
            index: DispatchBinding.contextIndex)

        // the world
        m.world.defaultSafetyLevel = SafetyLevel(rawValue: options.safety) ?? .relaxed
        m.world.diagnostics = { line in Console.error(line + "\n") }
        // [unowned(unsafe) m]: the world is owned by m (proof at `ModuleState`)
        m.world.locationProvider = { [unowned(unsafe) m] in m.location() }
        // (a LuaError the engine makes — a responder's wrong return, a raised event — carries the
        // traceback of the script's stack where the dispatch runs, as a runtime error's does)
        m.world.makeRuntimeError = { [unowned(unsafe) m] message, node in
            luaL_traceback(m.L, m.L, nil, 1)
            let traceback = m.runtime.string(at: -1)
            luashim_pop(m.L, 1)
            return ValueBinding.luaError(m, message: message, traceback: traceback, node: node)
        }

        // the module table; its functions (and the globals) appear on first use (`lazyName`)
        // (`LuaError` and `CancellationError` too: their userdata would make the type metatable)
        lua_createtable(L, 0, 8)
        let module = lua_gettop(L)
        runtime.pushString(version)
        lua_setfield(L, module, "version")

        // globals: the module's names, created on first use
        luashim_pushglobaltable(L)
        let globals = lua_gettop(L)
        lua_pushnil(L)
        while lua_next(L, module) != 0 {
            if let key = runtime.string(at: -2), key != "version" {
                lua_pushvalue(L, -2)
                lua_pushvalue(L, -2)
                lua_rawset(L, globals)
            }
            luashim_pop(L, 1)
        }
        // their metatables are invisible: any reflective look reveals everything and removes them
        for (table, isModule) in [(module, true), (globals, false)] {
            lua_createtable(L, 0, 2)
            lua_pushboolean(L, isModule ? 1 : 0)
            luashim_push_swift_closure(L, lazyName, 1)
            lua_setfield(L, -2, "__index")
            luashim_push_swift_function(L, reveal)
            luashim_set_lazy_reveal(L, -2)
            lua_setmetatable(L, table)
        }
        luashim_pop(L, 1)
        lua_pushvalue(L, module)
        lua_setglobal(L, "responder")

        // require "responder"
        LuaRuntime.pushLoadedTable(L)
        lua_pushvalue(L, module)
        lua_setfield(L, -2, "responder")
        ext?.install(m)
    }
}

extension LuaRuntime {
    /// The engine world of the `responder` module installed in this runtime, if any.
    public var world: World? { moduleState?.world }
}
