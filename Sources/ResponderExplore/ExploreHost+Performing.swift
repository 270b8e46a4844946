import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

/// Performing the actions an offer draws (the public API, through the protected-call path).
extension ExploreHost {
    /// Draws the arguments of an offer and performs it. Returns the resolved action and the
    /// failure of the call itself (checks come from `check()`).
    package func perform(_ offer: Offer, random r: inout ExploreRandom) -> (ExploreAction, ExploreFailure?) {
        traceBeforeAction = m.world.lastTrace
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
        traceBeforeAction = m.world.lastTrace
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

    func callFailure(_ failure: LuaFailure) -> ExploreFailure {
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
            kitRawField(L, -1, "run")
            lua_pushinteger(L, lua_Integer(index))
            m.push(m.world.root)
            luashim_push_swift_function(L, ExploreHost.drawFunction)
            let explore = top + 1
            let failure = runtime.call(3, 0)
            // the values drawn, also those before the action raised, so that its replay draws
            // them too (they were lost: the failure read as "not deterministic"; found by an
            // acceptance probe)
            lua_settop(L, explore)
            kitRawField(L, explore, "lastDraws")
            action.draws = lua_type(L, -1) == LUA_TTABLE ? readDraws(at: -1) : []
            return failure.map(callFailure)
        }
        // replay: explore.perform(name, draws)
        lua_getfield(L, luashim_registryindex(), ExploreAPI.tableKey)
        kitRawField(L, -1, "perform")
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

    /// The drawn values in the list at `index` (texts and integers). The run keeps them to
    /// replay and shrink a failure: they are charged to the run's memory cap (200 draws an
    /// action over 100,000 steps held 1.7 GB at `--max-memory 32`; found by an adversary probe).
    private func readDraws(at index: Int32) -> [ExploreDraw] {
        let L = runtime.L
        var draws: [ExploreDraw] = []
        var bytes = 0
        for i in 0..<Int(lua_rawlen(L, index)) {
            _ = lua_rawgeti(L, index, lua_Integer(i + 1))
            if lua_type(L, -1) == LUA_TSTRING {
                let text = runtime.string(at: -1) ?? ""
                bytes += 32 + text.utf8.count
                draws.append(.text(text))
            } else {
                bytes += 32
                draws.append(.int(Int64(luashim_tointeger(L, -1, nil))))
            }
            luashim_pop(L, 1)
        }
        luashim_charge_memory(UnsafeMutableRawPointer(runtime.control), bytes)
        return draws
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

}
