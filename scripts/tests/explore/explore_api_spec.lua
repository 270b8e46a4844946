-- The `explore` table under `responder test` (SPEC §3.5): registrations are kept but inert;
-- check, perform, noLuaError and scenario are what the specs `responder explore` writes use.

describe("explore steering API", function()
  it("check evaluates the invariants against the mounted root", function()
    local count = 0
    local root = View "Root" { id = "root" }
    mount(root)
    explore.invariant("count stays small", function(r)
      assert.equal(root, r)
      return count < 2, "count is " .. count
    end)
    assert.is_true(explore.check())
    count = 5
    assert.error_matches(function() explore.check("count stays small") end,
      "invariant 'count stays small' does not hold: count is 5")
    assert.error_matches(function() explore.check("missing") end, "no invariant named 'missing'")
  end)

  it("an invariant that raises fails check with its message", function()
    mount(View "Root")
    explore.invariant("raises", function() error("boom") end)
    assert.error_matches(function() explore.check() end, "invariant 'raises' raised: .*boom")
  end)

  it("perform replays a custom action with the values it drew", function()
    local seen = {}
    mount(View "Root")
    explore.action("add", function(root, draw)
      seen[#seen + 1] = { draw.int(1, 9), draw.pick({ "a", "b", "c" }), draw.text() }
    end, { weight = 3 })
    explore.perform("add", { 4, 2, "hello" })
    assert.same({ { 4, "b", "hello" } }, seen)
    assert.error_matches(function() explore.perform("add", { 4 }) end, "drew more values than the 1 given")
    assert.error_matches(function() explore.perform("add", { 12, 1, "" }) end, "not an integer in %[1, 9%]")
    assert.error_matches(function() explore.perform("nope") end, "no action named 'nope'")
  end)

  it("refuses action and invariant names that are not UTF-8: a replay could not find them (found by an adversary probe)", function()
    assert.error_matches(function() explore.action("caf\233", function() end) end,
      "bad argument #1 to 'explore.action' %(name is not valid UTF%-8%)")
    assert.error_matches(function() explore.invariant("caf\233", function() return true end) end,
      "bad argument #1 to 'explore.invariant' %(name is not valid UTF%-8%)")
    explore.action("café \0 \"quoted\"", function() end)
  end)

  it("noLuaError fails when the function made a LuaError", function()
    local root = View "Root" {
      Button "Bad" { id = "bad", action = function() error("broken action") end },
      Button "Good" { id = "good", action = function() end },
    }
    root:handleError(LuaError, function() end)
    mount(root)
    assert.is_true(explore.noLuaError(function() tap(root:find("#good")) end))
    assert.error_matches(function()
      explore.noLuaError(function() tap(root:find("#bad")) end)
    end, "a LuaError was reported: .*broken action")
  end)

  it("tasks lists the running tasks, oldest first", function()
    assert.same({}, explore.tasks())
    local a = AsyncButton "A" { action = function() sleep(1) end }
    local b = AsyncButton "B" { action = function() sleep(5) end }
    mount(View "Root" { a, b })
    tap(b); tap(a)
    local tasks = explore.tasks()
    assert.equal(2, #tasks)
    assert.equal(b, tasks[1].node)
    advance(1)
    assert.equal(1, #explore.tasks())
    explore.tasks()[1]:cancel()
    assert.same({}, explore.tasks())
  end)

  it("rejects bad arguments with located messages", function()
    assert.error_matches(function() explore.action(3) end, "bad argument #1 to 'explore.action' %(name %(string%) expected, got number%)")
    assert.error_matches(function() explore.action("x") end, "bad argument #2 to 'explore.action' %(function expected, got no value%)")
    assert.error_matches(function() explore.action("x", print, { weight = 0 }) end, "bad option 'weight'")
    assert.error_matches(function() explore.inputs("#f", {}) end, "non%-empty list of strings expected")
    assert.error_matches(function() explore.inputs("#f", { 1 }) end, "item 1 is a number")
    assert.error_matches(function() explore.ignore("") end, "selector")
    assert.error_matches(function() explore.invariant("x", 1) end, "function expected, got number")
    explore.invariant("twice", function() return true end)
    assert.error_matches(function() explore.invariant("twice", function() end) end, "already exists")
  end)

  it("scenario runs a script relative to the spec and returns its mounted root", function()
    local root = explore.scenario("../../examples/checkout.lua", { seed = 7 })
    assert.equal("Checkout", root.name)
    assert.equal(root, responder.mounted())
    toggle(root:find("#express"))
    tap(root:find("#add"))
    assert.error_matches(function()
      explore.noLuaError(function() tap(root:find("#remove")) end)
    end, "checkout.lua:%d+: attempt to concatenate a nil value")
  end)

  it("scenario runs with the safety level it is given, for its tree only", function()
    local root = explore.scenario("../../examples/checkout.lua", { seed = 7, safety = "strict" })
    assert.equal("strict", root:safetyLevel())
    local Stray = Event "Stray"
    assert.error_matches(function() root:trigger(Stray()) end, "unhandled event Stray")
    assert.error_matches(function() explore.scenario("../../examples/checkout.lua", { safety = "loose" }) end,
      "bad option 'safety'")
  end)

  it("a scenario's safety level does not leak into the next test", function()
    local Stray = Event "Stray"
    assert.unhandled(View "Other":trigger(Stray()))
  end)

  it("scenario reports a missing file and a script that mounts nothing", function()
    assert.error_matches(function() explore.scenario("no_such_file.lua") end, "cannot open")
    assert.error_matches(function() explore.scenario("explore_api_spec.lua", { seed = 1.5 }) end, "integer expected")
  end)
end)
