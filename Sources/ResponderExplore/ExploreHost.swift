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
    private var warningsSeen = 0
    private var luaErrorsSeen = 0
    /// Registrations read after the script ran.
    private var ignores: [(name: Substring, id: Substring)] = []
    private var inputs: [(name: Substring, id: Substring, list: [String])] = []
    package private(set) var customActions: [(name: String, weight: Double, hasWhen: Bool)] = []
    private var invariantCount = 0
    private var driverRef: Int32 = LUA_NOREF
    /// Draws of the custom action being performed (from `random`).
    package var random = ExploreRandom(seed: 0)
    private var replayDraws: [ExploreDraw]?

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
        warningsSeen = m.world.warnings.count
        luaErrorsSeen = m.luaErrorCount
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

    private static func matches(_ node: Node, _ name: Substring, _ id: Substring) -> Bool {
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
            rawField(L, -1, "selector")
            let sel = parse(runtime.string(at: -1) ?? "")
            luashim_pop(L, 1)
            rawField(L, -1, "list")
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
            rawField(L, -1, "name")
            let name = runtime.string(at: -1) ?? "?"
            rawField(L, -2, "weight")
            let weight = luashim_tonumber(L, -1, nil)
            rawField(L, -3, "when")
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
            if isKitLoaded {
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
    private func runningTasks() -> Int {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), "responder.liveTasks") == LUA_TFUNCTION,
            runtime.call(0, 1) == nil, lua_type(L, -1) == LUA_TTABLE
        else { return 0 }
        return Int(lua_rawlen(L, -1))
    }

    private var isKitLoaded: Bool {
        let L = runtime.L
        lua_getfield(L, luashim_registryindex(), "responder.kitLoaded")
        defer { luashim_pop(L, 1) }
        return lua_toboolean(L, -1) != 0
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
    private func isDisabled(_ node: Node) -> Bool {
        ControlIntrospector(m).isDisabled(node)
    }

    private func customWhen(_ index: Int) -> Bool {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), ExploreAPI.registryKey) == LUA_TTABLE else { return false }
        rawField(L, -1, "actions")
        _ = lua_rawgeti(L, -1, lua_Integer(index))
        rawField(L, -1, "when")
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

    // MARK: - performing

    /// Draws the arguments of an offer and performs it. Returns the resolved action and the
    /// failure of the call itself (checks come from `check()`).
    package func perform(_ offer: Offer, random r: inout ExploreRandom) -> (ExploreAction, ExploreFailure?) {
        var action = ExploreAction(kind: offer.kind, target: offer.node.map(target(of:)))
        switch offer.kind {
        case .tap:
            if offer.detail != 1 { action.number = Double(offer.detail) }
        case .typeText:
            let given = offer.node.flatMap(textsFor)
            let texts = given ?? ExploreHost.builtinTexts
            action.text = texts[r.below(texts.count)]
            action.textFromInputs = given != nil
        case .slide:
            action.number = sliderValue(offer.node!, &r)
        case .selectSegment:
            action.number = Double(1 + r.below(max(1, offer.detail)))
        case .advance:
            action.number = [0.1, 1, 5][r.below(3)]
        case .cancelTask:
            action.number = Double(1 + r.below(offer.detail))
        case .custom:
            action.name = customActions[offer.detail - 1].name
            random = r
            let failure = runCustom(index: offer.detail, replay: nil, into: &action)
            r = random
            return (action, failure)
        default:
            break
        }
        return (action, call(action, node: offer.node))
    }

    /// Performs a recorded action again. `ran` is false when its target or custom action is
    /// not there now (the action is skipped, as a spec could not perform it either).
    package func perform(_ action: ExploreAction) -> (ran: Bool, failure: ExploreFailure?) {
        if action.kind == .custom {
            guard let i = customActions.firstIndex(where: { $0.name == action.name }) else { return (false, nil) }
            if customActions[i].hasWhen && !customWhen(i + 1) { return (false, nil) }
            var copy = action
            return (true, runCustom(index: i + 1, replay: action.draws, into: &copy))
        }
        if action.kind == .cancelTask, Int(action.number ?? 1) > runningTasks() { return (false, nil) }
        var node: Node?
        if let t = action.target {
            guard let n = resolve(t) else { return (false, nil) }
            node = n
            if ignores.contains(where: { ig in n.pathToRoot.contains { ExploreHost.matches($0, ig.name, ig.id) } }) {
                return (false, nil)
            }
            if isDisabled(n) { return (false, nil) }
        }
        return (true, call(action, node: node))
    }

    private func textsFor(_ node: Node) -> [String]? {
        inputs.first { ExploreHost.matches(node, $0.name, $0.id) }?.list
    }

    private func sliderValue(_ node: Node, _ r: inout ExploreRandom) -> Double {
        let c = ControlIntrospection.control(m, node)
        let (lo, hi) = c?.range ?? (0, 1)
        switch r.below(4) {
        case 0: return lo
        case 1: return hi
        case 2: return lo + (c?.step ?? (hi - lo) / 2)
        default:
            let v = lo + (hi - lo) * r.unit()
            return (v * 1000).rounded() / 1000
        }
    }

    /// Calls the public function for an action through the driver.
    private func call(_ action: ExploreAction, node: Node?) -> ExploreFailure? {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        lua_rawgeti(L, luashim_registryindex(), lua_Integer(driverRef))
        runtime.pushString(action.kind.rawValue)
        var nargs: Int32 = 1
        if let node {
            m.push(node)
            nargs += 1
        }
        switch action.kind {
        case .tap:
            if let n = action.number {
                lua_pushinteger(L, lua_Integer(n))
                nargs += 1
            }
        case .typeText:
            runtime.pushString(action.text ?? "")
            nargs += 1
        case .slide, .advance:
            lua_pushnumber(L, action.number ?? 0)
            nargs += 1
        case .selectSegment, .cancelTask:
            lua_pushinteger(L, lua_Integer(action.number ?? 1))
            nargs += 1
        case .sendActions:
            runtime.pushString("touchUpInside")
            nargs += 1
        default:
            break
        }
        if let failure = runtime.call(nargs, 0) { return callFailure(failure) }
        return nil
    }

    /// Which limit stopped an action: `instructions`, `memory` or `time`.
    static func limitIdentity(_ kind: LuaFailure.Kind) -> String {
        switch kind {
        case .instructionLimit: "instructions"
        case .memoryLimit: "memory"
        default: "time"
        }
    }

    private func callFailure(_ failure: LuaFailure) -> ExploreFailure {
        if failure.isLimit {
            return ExploreFailure(
                kind: .limit, identity: ExploreHost.limitIdentity(failure.kind),
                message: failure.message, trace: lastTrace)
        }
        return ExploreFailure(
            kind: .error, identity: ExploreFailure.identity(ofMessage: failure.message),
            message: failure.message, trace: lastTrace)
    }

    private func runCustom(index: Int, replay: [ExploreDraw]?, into action: inout ExploreAction) -> ExploreFailure? {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        replayDraws = replay
        defer { replayDraws = nil }
        guard lua_getfield(L, luashim_registryindex(), ExploreAPI.registryKey) == LUA_TTABLE else { return nil }
        if replay == nil {
            rawField(L, -1, "run")
            lua_pushinteger(L, lua_Integer(index))
            m.push(m.world.root)
            luashim_push_swift_function(L, ExploreHost.drawFunction)
            if let failure = runtime.call(3, 1) { return callFailure(failure) }
            var draws: [ExploreDraw] = []
            for i in 0..<Int(lua_rawlen(L, -1)) {
                _ = lua_rawgeti(L, -1, lua_Integer(i + 1))
                if lua_type(L, -1) == LUA_TSTRING {
                    draws.append(.text(runtime.string(at: -1) ?? ""))
                } else {
                    draws.append(.int(Int64(luashim_tointeger(L, -1, nil))))
                }
                luashim_pop(L, 1)
            }
            action.draws = draws
            return nil
        }
        // replay: explore.perform(name, draws)
        lua_getfield(L, luashim_registryindex(), ExploreAPI.tableKey)
        rawField(L, -1, "perform")
        runtime.pushString(action.name ?? "")
        lua_createtable(L, Int32(replay?.count ?? 0), 0)
        for (i, d) in (replay ?? []).enumerated() {
            switch d {
            case .int(let v): lua_pushinteger(L, lua_Integer(v))
            case .text(let s): runtime.pushString(s)
            }
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        if let failure = runtime.call(2, 0) { return callFailure(failure) }
        return nil
    }

    /// `rand(lo, hi)` for custom actions' draws: from the explorer's generator.
    static let drawFunction: LuaSwiftFunction = { L in
        guard let host = (LuaRuntime.of(L).extensions[ObjectIdentifier(ExploreHost.self)] as? WeakHost)?.value else {
            lua_pushinteger(L, luashim_tointeger(L, 1, nil))
            return 1
        }
        let lo = luashim_tointeger(L, 1, nil)
        let hi = luashim_tointeger(L, 2, nil)
        lua_pushinteger(L, lua_Integer(host.random.int(Int64(lo), Int64(hi))))
        return 1
    }

    // MARK: - checks

    /// `tostring(lastTrace)` of the last top-level action.
    package var lastTrace: String? { m.world.lastTrace?.description }

    /// The checks after an action: a `LuaError` made, a violation recorded, an invariant broken.
    package func check() -> ExploreFailure? {
        if m.luaErrorCount > luaErrorsSeen {
            luaErrorsSeen = m.luaErrorCount
            let message = m.lastLuaErrorMessage
            return ExploreFailure(
                kind: .luaError, identity: ExploreFailure.identity(ofMessage: message),
                message: "LuaError: \(message)", trace: lastTrace)
        }
        let warnings = m.world.warnings
        if warnings.count > warningsSeen {
            let v = warnings[warningsSeen]
            warningsSeen = warnings.count
            let type = v.value?.type.name ?? ""
            return ExploreFailure(
                kind: .violation, identity: "\(v.kind.rawValue) \(type)",
                message: v.warningLine, trace: lastTrace)
        }
        if invariantCount > 0 { return checkInvariants() }
        return nil
    }

    private func checkInvariants() -> ExploreFailure? {
        let L = runtime.L
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_getfield(L, luashim_registryindex(), ExploreAPI.registryKey) == LUA_TTABLE else { return nil }
        let e = lua_gettop(L)
        rawField(L, e, "invariants")
        let list = lua_gettop(L)
        rawField(L, e, "checkOne")
        let checkOne = lua_gettop(L)
        for i in 1...invariantCount {
            lua_pushvalue(L, checkOne)
            _ = lua_rawgeti(L, list, lua_Integer(i))
            m.push(m.world.root)
            if let failure = runtime.call(2, 1) { return callFailure(failure) }
            if lua_type(L, -1) == LUA_TSTRING {
                let message = runtime.string(at: -1) ?? ""
                _ = lua_rawgeti(L, list, lua_Integer(i))
                rawField(L, -1, "name")
                let name = runtime.string(at: -1) ?? "?"
                return ExploreFailure(kind: .invariant, identity: name, message: message, trace: lastTrace)
            }
            luashim_pop(L, 1)
        }
        return nil
    }

    // MARK: - coverage

    /// Responder and control coverage of this run (when the state records it).
    package func coverage() -> CoverageData? { runtime.coverage?.snapshot() }
}

/// `t[name]` without metamethods (the tables read here are the explore chunk's own); pushes the
/// value and returns its type.
@discardableResult
private func rawField(_ L: OpaquePointer?, _ index: Int32, _ name: String) -> Int32 {
    let t = lua_absindex(L, index)
    var name = name
    name.withUTF8 { buf in
        buf.withMemoryRebound(to: CChar.self) { luashim_pushlstring(L, $0.baseAddress, $0.count) }
    }
    return lua_rawget(L, t)
}

/// The host as its runtime's extensions see it: weak, since the host owns the runtime.
final class WeakHost {
    weak var value: ExploreHost?
    init(_ value: ExploreHost) { self.value = value }
}
