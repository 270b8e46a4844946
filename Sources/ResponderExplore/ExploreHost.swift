import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

/// One run of `responder explore`: a fresh state that ran the script, the actions its mounted
/// tree offers now, performing them through the public API, and the checks after each one.
///
/// Everything the explorer does to the state goes through the one protected-call path
/// (`LuaRuntime.call`); the tree is read from the engine directly (iteratively, document order).
package final class ExploreHost {
    /// An action the tree offers now, before its arguments are drawn.
    package struct Offer {
        /// The swarm group (`tap`, `text`, `toggle`, …, `custom:NAME`).
        package let group: String
        package let kind: ExploreAction.Kind
        package let node: Node?
        /// Custom action index (1-based in the Lua list) or tap count.
        package let detail: Int
    }

    package let runtime: LuaRuntime
    let m: ModuleState
    var warningsSeen = 0
    var luaErrorsSeen = 0
    /// The last trace when the current action began: a failure's trace is the action's own only
    /// when the action recorded one (a custom action that dispatched nothing showed the trace
    /// of the action before it; found by an acceptance probe).
    var traceBeforeAction: Trace?
    /// Registrations read after the script ran.
    var ignores: [(name: Substring, id: Substring)] = []
    var inputs: [(name: Substring, id: Substring, list: [String])] = []
    package private(set) var customActions: [(name: String, weight: Double, hasWhen: Bool)] = []
    var invariantCount = 0
    var driverRef: Int32 = LUA_NOREF
    /// Draws of the custom action being performed (from `random`).
    package var random = ExploreRandom(seed: 0)
    var replayDraws: [ExploreDraw]?

    /// The built-in texts typed into fields the script gave no inputs for.
    package static let builtinTexts = ["", "a", String(repeating: "x", count: 64), "\u{E9}\u{1F642}", " "]

    /// Makes a fresh state and runs the script in it (prints muted, warnings not printed).
    /// Throws the script's failure.
    package init(script: String, options: ScenarioOptions) throws(LuaFailure) {
        runtime = try Scenario.makeRuntime(options)
        // The wall-clock limit covers the run as it covers a `run` or a test file: loading the
        // script, every action and closing the state. Lua code past it raises `time limit
        // exceeded` (the run fails with a limit); code the hook cannot reach ends the process.
        runtime.startTimeout()
        guard let m = runtime.moduleState else {
            throw LuaFailure(kind: .script, message: "internal error: no responder module")
        }
        self.m = m
        m.world.diagnostics = { _ in }
        runtime.extensions[ObjectIdentifier(ExploreHost.self)] = WeakHost(self)
        let L = runtime.L
        // the driver (Lua/driver.lua): calls a module function by name
        if let failure = runtime.loadHostChunk(
            PackageResources.driver_lua, chunkname: "=Sources/ResponderExplore/Lua/driver.lua")
        {
            throw failure
        }
        if let failure = runtime.call(0, 1) { throw failure }
        driverRef = luaL_ref(L, luashim_registryindex())
        try runtime.runFile(script)
        readRegistrations()
        // (the script's own violations and LuaErrors are failures too: the first check, before
        // any action, reports them, as strict mode does by raising from `mount`)
    }

    deinit {
        runtime.extensions[ObjectIdentifier(ExploreHost.self)] = nil
    }

    /// The mounted root.
    package var root: Node? { m.world.root }

    // MARK: - registrations

    private func parse(_ selector: String) -> (Substring, Substring) {
        if let hash = selector.firstIndex(of: "#") {
            return (selector[..<hash], selector[selector.index(after: hash)...])
        }
        return (Substring(selector), "")
    }

    static func matches(_ node: Node, _ name: Substring, _ id: Substring) -> Bool {
        (name.isEmpty || node.name == name) && (id.isEmpty || node.id.map { $0 == id } == true)
    }

    private func readRegistrations() {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), ExploreAPI.registryKey) == LUA_TTABLE else { return }
        let e = lua_gettop(L)
        func list(_ key: String) -> Int32 {
            runtime.pushString(key)
            _ = lua_rawget(L, e)
            return lua_gettop(L)
        }
        let ign = list("ignores")
        for i in 1...max(1, Int(lua_rawlen(L, ign))) where lua_rawgeti(L, ign, lua_Integer(i)) == LUA_TSTRING {
            ignores.append(parse(runtime.string(at: -1) ?? ""))
            luashim_pop(L, 1)
        }
        let inp = list("inputs")
        for i in 0..<Int(lua_rawlen(L, inp)) {
            _ = lua_rawgeti(L, inp, lua_Integer(i + 1))
            kitRawField(L, -1, "selector")
            let sel = parse(runtime.string(at: -1) ?? "")
            luashim_pop(L, 1)
            kitRawField(L, -1, "list")
            var strings: [String] = []
            for j in 0..<Int(lua_rawlen(L, -1)) {
                _ = lua_rawgeti(L, -1, lua_Integer(j + 1))
                strings.append(runtime.string(at: -1) ?? "")
                luashim_pop(L, 1)
            }
            luashim_pop(L, 2)
            inputs.append((sel.0, sel.1, strings))
        }
        let act = list("actions")
        for i in 0..<Int(lua_rawlen(L, act)) {
            _ = lua_rawgeti(L, act, lua_Integer(i + 1))
            kitRawField(L, -1, "name")
            let name = runtime.string(at: -1) ?? "?"
            kitRawField(L, -2, "weight")
            let weight = luashim_tonumber(L, -1, nil)
            kitRawField(L, -3, "when")
            let hasWhen = lua_type(L, -1) == LUA_TFUNCTION
            luashim_pop(L, 4)
            customActions.append((name, weight, hasWhen))
        }
        invariantCount = Int(lua_rawlen(L, list("invariants")))
    }

    // MARK: - offers

    /// The actions the mounted tree offers now, in document order (custom actions last).
    package func offers() -> [Offer] {
        var result: [Offer] = []
        if let root = m.world.root {
            let kit = ControlIntrospector(m)
            var stack = [root]
            while let node = stack.popLast() {
                if !ignores.isEmpty, ignores.contains(where: { ExploreHost.matches(node, $0.name, $0.id) }) { continue }
                appendOffers(for: node, kit, to: &result)
                var i = node.children.count
                while i > 0 {
                    i -= 1
                    stack.append(node.children[i])
                }
            }
            if m.isKitUsed {
                result.append(Offer(group: "advance", kind: .advance, node: nil, detail: 0))
                let tasks = runningTasks()
                if tasks > 0 { result.append(Offer(group: "cancel", kind: .cancelTask, node: nil, detail: tasks)) }
            }
        }
        for (i, a) in customActions.enumerated() where !a.hasWhen || customWhen(i + 1) {
            result.append(Offer(group: "custom:" + a.name, kind: .custom, node: nil, detail: i + 1))
        }
        return result
    }

    /// How many tasks run now (`explore.tasks()`).
    func runningTasks() -> Int {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), "responder.liveTasks") == LUA_TFUNCTION,
            runtime.call(0, 1) == nil, lua_type(L, -1) == LUA_TTABLE
        else { return 0 }
        return Int(lua_rawlen(L, -1))
    }

    private func appendOffers(for node: Node, _ kit: ControlIntrospector, to result: inout [Offer]) {
        if let c = kit.control(node) {
            if kit.isDisabled(node) { return }
            switch c.kind {
            case .button: result.append(Offer(group: "tap", kind: .tap, node: node, detail: 1))
            case .toggle: result.append(Offer(group: "toggle", kind: .toggle, node: node, detail: 0))
            case .textField, .secureField:
                result.append(Offer(group: "text", kind: .typeText, node: node, detail: 0))
                result.append(Offer(group: "text", kind: .commit, node: node, detail: 0))
            case .slider: result.append(Offer(group: "slide", kind: .slide, node: node, detail: 0))
            case .stepper:
                if c.canIncrement { result.append(Offer(group: "stepper", kind: .increment, node: node, detail: 0)) }
                if c.canDecrement { result.append(Offer(group: "stepper", kind: .decrement, node: node, detail: 0)) }
            case .segmentedControl:
                if c.segments > 0 {
                    result.append(Offer(group: "segment", kind: .selectSegment, node: node, detail: c.segments))
                }
            }
            return
        }
        if !node.tapActions.isEmpty {
            if kit.isDisabled(node) { return }
            var counts: [Int] = []
            for a in node.tapActions where !counts.contains(a.count) { counts.append(a.count) }
            for n in counts { result.append(Offer(group: "tap", kind: .tap, node: node, detail: n)) }
        } else if kit.sendsTouchUpInside(node) {
            if kit.isDisabled(node) { return }
            result.append(Offer(group: "send", kind: .sendActions, node: node, detail: 0))
        }
    }

    /// Whether the node reports itself disabled (SPEC §2.10), as the kit answers it.
    func isDisabled(_ node: Node) -> Bool {
        ControlIntrospector(m).isDisabled(node)
    }

    func customWhen(_ index: Int) -> Bool {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), ExploreAPI.registryKey) == LUA_TTABLE else { return false }
        kitRawField(L, -1, "actions")
        _ = lua_rawgeti(L, -1, lua_Integer(index))
        kitRawField(L, -1, "when")
        m.push(m.world.root)
        guard runtime.call(1, 1) == nil else { return false }
        return lua_toboolean(L, -1) != 0
    }

    // MARK: - targets

    /// The selector and index that find `node` from the mounted root.
    package func target(of node: Node) -> ExploreTarget {
        let selector: String = node.id.map { "#" + $0 } ?? node.name
        guard let root = m.world.root else { return ExploreTarget(selector: selector, index: 1) }
        var index = 0
        var stack = [root]
        while let n = stack.popLast() {
            if node.id != nil ? n.id == node.id : n.name == node.name {
                index += 1
                if n === node { return ExploreTarget(selector: selector, index: index) }
            }
            var i = n.children.count
            while i > 0 {
                i -= 1
                stack.append(n.children[i])
            }
        }
        return ExploreTarget(selector: selector, index: 1)
    }

    /// The node a target finds now, or nil.
    package func resolve(_ target: ExploreTarget) -> Node? {
        guard let root = m.world.root else { return nil }
        let (name, id) = parse(target.selector)
        var index = 0
        var stack = [root]
        while let n = stack.popLast() {
            if ExploreHost.matches(n, name, id) {
                index += 1
                if index == target.index { return n }
            }
            var i = n.children.count
            while i > 0 {
                i -= 1
                stack.append(n.children[i])
            }
        }
        return nil
    }

}
