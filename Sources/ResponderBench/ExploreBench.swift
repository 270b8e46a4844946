import ResponderExplore
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 11: explore throughput (fresh state per run included), coverage overhead of
/// `responder test --coverage` on the project's Lua suite, shrinking a failure found after
/// 1,000 actions.
func exploreBench(responder: String, quick: Bool) -> [Row] {
    var rows: [Row] = []
    guard let dir = makeScratchFolder("responder-bench-explore") else { return rows }
    defer { removeTree(dir) }

    // explore actions/s, in process (what `responder explore` runs), median of 5 with spread
    func throughput(_ script: String, runs: Int, steps: Int) -> (
        median: Double, low: Double, high: Double, distinct: Int
    ) {
        var samples: [Double] = []
        var distinct = 0
        for rep in 0..<(quick ? 3 : 5) {
            var options = ExploreOptions(script: script)
            options.runs = runs
            options.steps = steps
            options.seed = UInt64(rep + 1)
            let result = Explorer(options: options).explore()
            if result.finding != nil { return (0, 0, 0, 0) }
            samples.append(result.actionsPerSecond)
            distinct = result.distinctActions
        }
        samples.sort()
        return (samples[samples.count / 2], samples.first!, samples.last!, distinct)
    }
    let grid = "scripts/examples/item_grid.lua"
    if access(grid, R_OK) == 0 {
        let t = throughput(grid, runs: 200, steps: 50)
        rows.append(
            Row(
                name:
                    "`explore` item_grid.lua, 200 runs × 50 steps, fresh state per run (actions/s, median of runs; min–max)",
                ours: "\(fmt(t.median, 0)) (\(fmt(t.low, 0))–\(fmt(t.high, 0)))", reference: "", ratio: nil,
                goal: "≥ 5,000/s"))
    }
    let form = dir + "/form200.lua"
    FileText.write(formScript(), to: form)
    let f = throughput(form, runs: 100, steps: 50)
    rows.append(
        Row(
            name: "`explore` 200-node form with 20 controls, 100 runs × 50 steps (actions/s; min–max)",
            ours: "\(fmt(f.median, 0)) (\(fmt(f.low, 0))–\(fmt(f.high, 0)))", reference: "", ratio: nil,
            goal: "≥ 5,000/s"))

    // shrinking: a failure that needs three taps in order, found after 1,000 actions
    let shrinkScript = dir + "/shrink1000.lua"
    FileText.write(shrinkScript1000(), to: shrinkScript)
    var shrinkTimes: [Double] = []
    var minimalCount = 0
    for rep in 0..<(quick ? 3 : 5) {
        var random = ExploreRandom(seed: UInt64(100 + rep))
        var actions: [ExploreAction] = (0..<1_000).map { _ in
            ExploreAction(kind: .tap, target: ExploreTarget(selector: "#n\(random.below(17))", index: 1))
        }
        actions[100] = ExploreAction(kind: .tap, target: ExploreTarget(selector: "#a", index: 1))
        actions[500] = ExploreAction(kind: .tap, target: ExploreTarget(selector: "#b", index: 1))
        actions[999] = ExploreAction(kind: .tap, target: ExploreTarget(selector: "#c", index: 1))
        var options = ExploreOptions(script: shrinkScript)
        options.seed = 1
        let explorer = Explorer(options: options)
        let failure = ExploreFailure(kind: .invariant, identity: "a, b, c never in order", message: "")
        let start = nowNanos()
        let finding = explorer.shrink(run: 0, actions: actions, failure: failure)
        shrinkTimes.append(Double(nowNanos() - start) / 1e9)
        minimalCount = finding.flaky ? -1 : finding.minimal.count
    }
    shrinkTimes.sort()
    rows.append(
        Row(
            name: "shrink a failure found after 1,000 actions (seconds, median; min–max) → actions left",
            ours:
                "\(fmt(shrinkTimes[shrinkTimes.count / 2], 3)) s (\(fmt(shrinkTimes.first!, 3))–\(fmt(shrinkTimes.last!, 3))) → \(minimalCount)",
            reference: "", ratio: nil, goal: "≤ 2 s, ≤ 10 actions"))

    // coverage overhead over the project's Lua suite (wall, interleaved, median of 5)
    if access("scripts/tests", R_OK) == 0 {
        var plain: [UInt64] = []
        var covered: [UInt64] = []
        let out = dir + "/suite.info"
        for _ in 0..<(quick ? 3 : 5) {
            if let t = timeCommand([responder, "test", "scripts/tests"]) { plain.append(t) }
            if let t = timeCommand([responder, "test", "scripts/tests", "--coverage", "--coverage-output", out]) {
                covered.append(t)
            }
        }
        plain.sort()
        covered.sort()
        if !plain.isEmpty && !covered.isEmpty {
            let p = Double(plain[plain.count / 2])
            let c = Double(covered[covered.count / 2])
            rows.append(
                Row(
                    name:
                        "`responder test --coverage` over scripts/tests vs without (wall, median of interleaved runs; min–max)",
                    ours:
                        "\(fmt(c / 1e6, 0)) ms (\(fmt(Double(covered.first!) / 1e6, 0))–\(fmt(Double(covered.last!) / 1e6, 0)))",
                    reference:
                        "\(fmt(p / 1e6, 0)) ms (\(fmt(Double(plain.first!) / 1e6, 0))–\(fmt(Double(plain.last!) / 1e6, 0)))",
                    ratio: c / p, goal: "≤ 1.5×"))
        }
    }
    return rows
}

/// A form of 200 nodes: 20 sections of a header, 8 labels and one control each (buttons,
/// toggles, text fields, sliders, steppers in turn), plus a summary handled at the root.
func formScript() -> String {
    var s = """
        local Changed = Event "Changed"
        local form = View "Form" { id = "form" }
        local count = 0

        """
    let kinds = ["button", "toggle", "text", "slider", "stepper"]
    for i in 0..<20 {
        s += "do\n  local section = View \"Section\" { id = \"s\(i)\", View \"Header\" { text = \"Section \(i)\" } }\n"
        s += "  for j = 1, 8 do section:add(View \"Label\" { text = \"label \" .. j }) end\n"
        switch kinds[i % kinds.count] {
        case "button":
            s +=
                "  section:add(Button \"B\(i)\" { id = \"c\(i)\", action = function(sender) sender:trigger(Changed()) end })\n"
        case "toggle": s += "  section:add(Toggle \"T\(i)\" { id = \"c\(i)\", isOn = State(false) })\n"
        case "text": s += "  section:add(TextField \"F\(i)\" { id = \"c\(i)\", text = State(\"\") })\n"
        case "slider": s += "  section:add(Slider { id = \"c\(i)\", value = State(0), range = { 0, 10 }, step = 1 })\n"
        default: s += "  section:add(Stepper \"S\(i)\" { id = \"c\(i)\", value = State(0), range = { 0, 5 } })\n"
        }
        s += "  form:add(section)\nend\n"
    }
    s += """
        local root = View "Screen" { form, View "Summary" { id = "summary" } }
        root:handleEvent(Changed, function() count = count + 1 end)
        mount(root)
        explore.invariant("count is a number", function() return type(count) == "number" end)

        """
    return s
}

/// Twenty buttons; the invariant breaks once #a, #b and #c were tapped in that order.
func shrinkScript1000() -> String {
    var s = "local seen = {}\nlocal root = View \"Root\" {}\n"
    for i in 0..<17 { s += "root:add(Button \"N\(i)\" { id = \"n\(i)\", action = function() end })\n" }
    s += """
        for _, id in ipairs { "a", "b", "c" } do
          root:add(Button(id) { id = id, action = function()
            if id == "a" or (id == "b" and seen.a) or (id == "c" and seen.b) then seen[id] = true end
          end })
        end
        mount(root)
        explore.invariant("a, b, c never in order", function() return not seen.c end)

        """
    return s
}
