import CLua
import CLuaShim
import ResponderEngine

/// The `responder` Lua module (SPEC §2): installed into a runtime, its names also global.
public enum ResponderModule {
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

    /// Names that stay inside the module table (too generic to be globals).
    static let moduleOnly: Set<String> = ["reset", "warnings", "clearWarnings", "lastTrace", "alert", "dismissAlert", "mounted"]

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

    /// Installs the module table as `require "responder"` and copies its public names to globals.
    public static func install(into runtime: LuaRuntime, options: ScenarioOptions) {
        let m = ModuleState(runtime: runtime, options: options)
        runtime.moduleState = m
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }

        // identity cache: weak values
        luashim_newtable(L)
        luashim_newtable(L)
        runtime.pushString("v")
        lua_setfield(L, -2, "__mode")
        lua_setmetatable(L, -2)
        m.cacheRef = luaL_ref(L, luashim_registryindex())
        lua_createtable(L, Int32(ModuleState.recentSlots), 0)
        m.recentRef = luaL_ref(L, luashim_registryindex())

        m.metatables = Array(repeating: LUA_NOREF, count: ObjectKind.allCases.count)
        func metatable(_ kind: ObjectKind, _ fields: [(String, LuaSwiftFunction)],
                       index: LuaSwiftFunction? = nil, methods: [(String, LuaSwiftFunction)] = []) {
            luashim_newtable(L)
            for (name, fn) in fields {
                luashim_push_swift_function(L, fn)
                lua_setfield(L, -2, name)
            }
            if let index {
                if methods.isEmpty {
                    luashim_push_swift_function(L, index)
                } else {
                    lua_createtable(L, 0, Int32(methods.count))
                    for (name, fn) in methods {
                        luashim_push_swift_function(L, fn)
                        lua_setfield(L, -2, name)
                    }
                    luashim_push_swift_function(L, index)
                    luashim_push_index(L)
                }
                lua_setfield(L, -2, "__index")
            }
            luashim_push_swift_function(L, WorldBinding.gc)
            lua_setfield(L, -2, "__gc")
            runtime.pushString("responder." + kind.label)
            lua_setfield(L, -2, "__name")
            runtime.pushString("locked")
            lua_setfield(L, -2, "__metatable")
            m.metatables[kind.rawValue] = luaL_ref(L, luashim_registryindex())
        }
        metatable(.node, [("__newindex", NodeBinding.newindex), ("__tostring", NodeBinding.tostring),
                          ("__call", NodeBinding.call)],
                  index: NodeBinding.get,
                  methods: nodeMethods + ControlsBinding.nodeMethods + EnvironmentBinding.nodeMethods)
        metatable(.value, [("__newindex", ValueBinding.newindex), ("__tostring", ValueBinding.tostring),
                           ("__pairs", ValueBinding.pairs),
                           ("__eq", ValueBinding.eq)],
                  index: ValueBinding.index)
        metatable(.type, [("__call", TypeBinding.call), ("__tostring", TypeBinding.tostring),
                          ("__newindex", TypeBinding.newindex)],
                  index: TypeBinding.get, methods: [("is", TypeBinding.isMethod)])
        metatable(.outcome, [("__tostring", DispatchBinding.outcomeToString)], index: DispatchBinding.outcomeIndex)
        metatable(.trace, [("__tostring", TraceBinding.tostring), ("__len", TraceBinding.len)], index: TraceBinding.index)
        metatable(.publisher, [("__call", PublishBinding.call), ("__tostring", PublishBinding.tostring)],
                  index: PublishBinding.get, methods: [("publish", PublishBinding.publishMethod)])
        metatable(.context, [("__tostring", DispatchBinding.contextToString)], index: DispatchBinding.contextIndex)

        // the world
        m.world.defaultSafetyLevel = SafetyLevel(rawValue: options.safety) ?? .relaxed
        m.world.diagnostics = { line in Console.error(line + "\n") }
        m.world.makeRuntimeError = { [unowned(unsafe) m] message, node in
            ValueBinding.luaError(m, message: message, traceback: nil, node: node)
        }

        // the module table
        lua_createtable(L, 0, Int32(functions.count + 4))
        let module = lua_gettop(L)
        for (name, fn) in functions + ControlsBinding.functions + EnvironmentBinding.functions {
            luashim_push_swift_function(L, fn)
            lua_setfield(L, module, name)
        }
        m.push(m.luaErrorType)
        lua_setfield(L, module, "LuaError")
        m.push(m.cancellationErrorType)
        lua_setfield(L, module, "CancellationError")
        runtime.pushString("0.1.0")
        lua_setfield(L, module, "version")

        // globals
        luashim_pushglobaltable(L)
        let globals = lua_gettop(L)
        lua_pushnil(L)
        while lua_next(L, module) != 0 {
            if let key = runtime.string(at: -2), !moduleOnly.contains(key), key != "version" {
                lua_pushvalue(L, -2)
                lua_pushvalue(L, -2)
                lua_rawset(L, globals)
            }
            luashim_pop(L, 1)
        }
        luashim_pop(L, 1)
        lua_pushvalue(L, module)
        lua_setglobal(L, "responder")

        // require "responder"
        lua_getfield(L, luashim_registryindex(), "responder.loaded")
        if lua_type(L, -1) != LUA_TTABLE {
            luashim_pop(L, 1)
            luashim_newtable(L)
            lua_pushvalue(L, -1)
            lua_setfield(L, luashim_registryindex(), "responder.loaded")
        }
        lua_pushvalue(L, module)
        lua_setfield(L, -2, "responder")
        m.moduleRef = LUA_NOREF
        ControlsBinding.install(m)
        EnvironmentBinding.install(m)
    }
}
