import CLua
import CLuaShim
import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 13's table: every row with its goal, both sides measured in this run.
func goalsBench(responder: String, quick: Bool) -> [Row] {
    var rows: [Row] = []
    let samples = quick ? 5 : 11

    // dispatch from Lua vs the pure-Lua reference in the same interpreter
    for (depth, goal) in [(1, "≤ 0.8×"), (100, "≤ 0.10×")] {
        let (ours, lua) = dispatchPair(depth: depth, samples: samples)
        rows.append(
            Row(
                name: "dispatch from Lua, depth \(depth), vs the pure-Lua reference (µs per dispatch)",
                ours: ours.text(1000, "µs"), reference: lua.text(1000, "µs"),
                ratio: ours.median / lua.median, goal: goal))
    }

    rows += testRunnerRows(responder: responder, runs: quick ? 5 : 9)

    if !quick {
        let m = memoryPerNodeSamples(count: 1_000_000, runs: 3)
        rows.append(
            Row(
                name:
                    "memory per node, 1 M nodes built from Lua, vs a plain table node `{name, parent, responders = {}}` (3 runs)",
                ours: m.ours.text(1, "B", 1), reference: m.plain.text(1, "B", 1),
                ratio: m.ours.median / m.plain.median, goal: "≤ 1.0×"))
    }

    rows += emptyRunRows(responder: responder, runs: quick ? 11 : 31)
    rows.append(findByIdRow(samples: samples))
    return rows
}

/// `responder test` vs `busted`, both run in a folder of 500 small spec files the way users run
/// them (`busted` with no arguments reads `./spec`; `responder test` with none reads `.`), warm,
/// alternating, wall time. `busted`'s launcher runs `lua`, which Debian points at the highest-
/// priority Lua installed (5.1 once `lua-check` is there): the goal row is that, as users run it;
/// a second row runs busted under `lua5.4`, where it is several times slower.
func testRunnerRows(responder: String, runs: Int) -> [Row] {
    let name =
        "`responder test` vs `busted` in a folder of 500 small spec files (wall, warm, alternating, \(runs) runs each)"
    guard let dir = makeScratchFolder("responder-bench-specs") else {
        return [Row(name: name + ": no scratch folder", ours: "", reference: "", ratio: nil, goal: "≤ 0.25×")]
    }
    defer { removeTree(dir) }
    mkdir(dir + "/spec", 0o755)
    for i in 0..<500 {
        FileText.write(
            """
            describe("file \(i)", function()
              local t
              before_each(function() t = { 1, 2, 3 } end)
              it("adds", function() assert.are.equal(6, t[1] + t[2] + t[3]) end)
              it("compares tables", function() assert.are.same({ a = { \(i) } }, { a = { \(i) } }) end)
              it("checks truthiness", function() assert.is_true(#t == 3); assert.is_nil(t.x) end)
            end)
            """, to: "\(dir)/spec/file\(i)_spec.lua")
    }
    guard onPath("busted") else {
        return [Row(name: name + " (busted not installed)", ours: "", reference: "", ratio: nil, goal: "≤ 0.25×")]
    }
    let busted = ["busted"]
    let busted54 = ["sh", "-c", "exec lua5.4 \"$(command -v busted)\""]
    let with54 = onPath("lua5.4")
    // warm: the files and the programs in the page cache
    _ = timeCommand([responder, "test"], in: dir)
    _ = timeCommand(busted, in: dir)
    if with54 { _ = timeCommand(busted54, in: dir) }
    var ours = Samples()
    var theirs = Samples()
    var theirs54 = Samples()
    for _ in 0..<runs {
        if let t = timeCommand([responder, "test"], in: dir) { ours.add(Double(t)) }
        if let t = timeCommand(busted, in: dir) { theirs.add(Double(t)) }
        if with54, let t = timeCommand(busted54, in: dir) { theirs54.add(Double(t)) }
    }
    var rows = [
        Row(
            name: name + "; `busted` as installed (its `lua` is \(resolvedCommand("lua") ?? "missing"))",
            ours: ours.text(1e6, "ms", 0), reference: theirs.text(1e6, "ms", 0),
            ratio: ours.median / theirs.median, goal: "≤ 0.25×")
    ]
    if with54 {
        rows.append(
            Row(
                name: "… the same against busted run under `lua5.4`", ours: ours.text(1e6, "ms", 0),
                reference: theirs54.text(1e6, "ms", 0), ratio: ours.median / theirs54.median, goal: "—"))
    }
    return rows
}

/// The file `name` resolves to on `PATH`, symbolic links followed (e.g. `/usr/bin/lua5.1` for `lua`).
func resolvedCommand(_ name: String) -> String? {
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/\(name)"
        guard access(candidate, X_OK) == 0, let real = realpath(candidate, nil) else { continue }
        defer { free(real) }
        return String(cString: real)
    }
    return nil
}

/// `responder run empty.lua` vs `lua5.4 empty.lua`, wall, alternating; and, as the floor of
/// any Swift executable here, a Swift program that does nothing, built with the static runtime
/// and linked the way `scripts/setup` links `responder` (when `swiftc` is on the path).
func emptyRunRows(responder: String, runs: Int) -> [Row] {
    let linkage =
        isStaticExecutable(responder)
        ? "static executable, as scripts/setup builds it"
        : isStaticSwift(responder)
            ? "static Swift stdlib"
            : "DYNAMIC Swift stdlib: build with `swift build -c release --static-swift-stdlib` as scripts/setup does"
    let name = "`responder run empty.lua` vs `lua5.4 empty.lua` (wall, \(runs) runs each, alternating; \(linkage))"
    guard onPath("lua5.4"), let dir = makeScratchFolder("responder-bench-empty") else {
        return [Row(name: name + " (lua5.4 not installed)", ours: "", reference: "", ratio: nil, goal: "≤ 1.5×")]
    }
    defer { removeTree(dir) }
    let empty = dir + "/empty.lua"
    FileText.write("", to: empty)
    let floor = buildEmptySwiftProgram(in: dir, linkedLike: responder)
    _ = timeCommand([responder, "run", empty])
    _ = timeCommand(["lua5.4", empty])
    if let floor { _ = timeCommand([floor]) }
    var ours = Samples()
    var lua = Samples()
    var swift = Samples()
    for _ in 0..<runs {
        if let t = timeCommand([responder, "run", empty]) { ours.add(Double(t)) }
        if let t = timeCommand(["lua5.4", empty]) { lua.add(Double(t)) }
        if let floor, let t = timeCommand([floor]) { swift.add(Double(t)) }
    }
    var rows = [
        Row(
            name: name, ours: ours.text(1e6, "ms"), reference: lua.text(1e6, "ms"),
            ratio: ours.median / lua.median, goal: "≤ 1.5×")
    ]
    if floor != nil {
        rows.append(
            Row(
                name:
                    "… the floor: a Swift program that does nothing (static runtime, linked like responder) vs `lua5.4 empty.lua`",
                ours: swift.text(1e6, "ms"), reference: lua.text(1e6, "ms"),
                ratio: swift.median / lua.median, goal: ""))
    }
    return rows
}

/// Compiles `let n = CommandLine.arguments.count` into `dir/empty-swift` with the static Swift
/// runtime, linked the way `scripts/setup` linked the benchmark: a static position-independent
/// executable when `binary` is one (without `responder`'s prefaulting entry, which lives
/// in its C shim), else with lld and packed relative relocations when available;
/// `nil` when `swiftc` is missing or the build fails.
func buildEmptySwiftProgram(in dir: String, linkedLike binary: String) -> String? {
    guard onPath("swiftc") else { return nil }
    FileText.write("let n = CommandLine.arguments.count\nif n > 100 { print(n) }\n", to: dir + "/main.swift")
    let out = dir + "/empty-swift"
    let plain = "swiftc -O -static-stdlib '\(dir)/main.swift' -o '\(out)'"
    let lld = plain + " -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs"
    // scripts/setup's first choice: one static position-independent executable
    let staticPIE =
        "swiftc -O -static-executable '\(dir)/main.swift' -o '\(out)' -use-ld=lld -Xclang-linker -static-pie"
        + " -Xlinker -z -Xlinker pack-relative-relocs"
    let linked = isStaticExecutable(binary) ? "(\(staticPIE) || \(lld) || \(plain))" : "(\(lld) || \(plain))"
    guard system("\(linked) >/dev/null 2>&1") == 0 else { return nil }
    return out
}

/// Whether the binary is a static executable (no program interpreter), as `scripts/setup` links it.
func isStaticExecutable(_ binary: String) -> Bool {
    system("readelf -lW '\(binary)' 2>/dev/null | grep INTERP >/dev/null") != 0
}

/// Whether the binary has the Swift runtime linked in (no libswiftCore.so needed).
func isStaticSwift(_ binary: String) -> Bool {
    system("ldd '\(binary)' 2>/dev/null | grep -q libswiftCore") != 0
}

/// `root:find("#id")` among 100,000 children (ids on every child; the looked-up ids vary).
func findByIdRow(samples: Int) -> Row {
    let name = "`root:find(\"#id\")` among 100,000 children (µs per call, from Lua)"
    guard let rt = try? Scenario.makeRuntime(ScenarioOptions(limits: benchLimits)) else {
        return Row(name: name, ours: "", reference: "", ratio: nil, goal: "≤ 1 µs")
    }
    let calls = 200_000
    let code = """
        local root = View "Root"
        for i = 1, 100000 do root:add(View "Item" { id = "item" .. i }) end
        local ids = {}
        for i = 1, 1000 do ids[i] = "#item" .. ((i * 7919) % 100000 + 1) end
        return function()
          local found = 0
          for i = 1, \(calls) do
            if root:find(ids[i % 1000 + 1]) then found = found + 1 end
          end
          assert(found == \(calls), "find missed")
        end
        """
    do { try rt.runString(code, chunkname: "=find", results: 1) } catch {
        return Row(name: name + ": \(error)", ours: "", reference: "", ratio: nil, goal: "≤ 1 µs")
    }
    let fn = luaL_ref(rt.L, luashim_registryindex())
    var times = Samples()
    for _ in 0..<samples {
        rt.resetLimits()
        lua_rawgeti(rt.L, luashim_registryindex(), lua_Integer(fn))
        let start = nowNanos()
        if let f = rt.call(0, 0) {
            return Row(name: name + ": \(f)", ours: "", reference: "", ratio: nil, goal: "≤ 1 µs")
        }
        times.add(Double(nowNanos() - start) / Double(calls))
    }
    let met = times.median <= 1000 ? "met" : "MISSED"
    return Row(name: name, ours: times.text(1000, "µs", 3), reference: "", ratio: nil, goal: "≤ 1 µs", verdict: met)
}

/// Removes a scratch folder the benchmark made (files, then folders, no symlinks followed).
func removeTree(_ path: String) {
    _ = timeCommand(["rm", "-rf", "--", path])
}
