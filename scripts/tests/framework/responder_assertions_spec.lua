-- assert.handled / unhandled / trace / warns / no_warnings (SPEC §3), with stand-in values
-- shaped like the engine's outcomes and traces; responder_world_spec.lua uses the real engine.

local function fake_trace(text)
  return setmetatable({}, { __tostring = function() return text end })
end

local TRACE = [[
event ItemSelected{item="b"} from Item#b
  Item#b       #1 receiveEvent                 passed
  Grid         #1 transformEvent(FirstEvent)   skipped
  Root         #2 handleEvent(ItemSelected)    handled]]

local root = setmetatable({ name = "Root" }, { __tostring = function() return "Root" end })
local grid = setmetatable({ name = "Grid" }, { __tostring = function() return "Grid" end })

local handled = { handled = true, by = root, responder = "handleEvent", value = "ItemSelected{item=\"b\"}", trace = fake_trace(TRACE) }
local unhandled = { handled = false, value = "Ping{}", trace = fake_trace("event Ping{} from Root\n  Root #1 receiveEvent passed") }

local function failure_of(fn)
  local ok, e = pcall(fn)
  assert.is_false(ok)
  return e
end

describe("assert.handled", function()
  it("passes when handled, optionally by a given node or name", function()
    assert.handled(handled)
    assert.handled(handled, root)
    assert.handled(handled, "Root")
    assert.is_not.handled(unhandled)
  end)

  it("fails with the trace attached", function()
    local e = failure_of(function() assert.handled(unhandled) end)
    assert.truthy(e.message:find("to be handled, but it was unhandled", 1, true))
    assert.equal("event Ping{} from Root\n  Root #1 receiveEvent passed", e.trace)
    e = failure_of(function() assert.handled(handled, grid) end)
    assert.truthy(e.message:find("handled by Grid, but it was handled by Root (handleEvent)", 1, true))
  end)

  it("rejects values that are not outcomes", function()
    local ok, e = pcall(function() assert.handled("nope") end)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("expects an outcome", 1, true))
  end)
end)

describe("assert.unhandled", function()
  it("passes and fails", function()
    assert.unhandled(unhandled)
    local e = failure_of(function() assert.unhandled(handled) end)
    assert.truthy(e.message:find("handled by Root", 1, true))
    assert.truthy(e.trace:find("Root", 1, true))
  end)
end)

describe("assert.trace", function()
  it("matches lines with whitespace collapsed", function()
    assert.trace(handled, TRACE)
    assert.trace(handled.trace, [[
      event ItemSelected{item="b"} from Item#b
      Item#b #1 receiveEvent passed
      Grid #1 transformEvent(FirstEvent) skipped
      Root #2 handleEvent(ItemSelected) handled
    ]])
  end)

  it("accepts an array of lines and * wildcards", function()
    assert.trace(handled, {
      "event ItemSelected* from Item#b",
      "Item#b #1 receiveEvent passed",
      "* skipped",
      "Root #2 * handled",
    })
  end)

  it("fails with a -/+ diff and the actual trace", function()
    local e = failure_of(function()
      assert.trace(handled, {
        "event ItemSelected* from Item#b",
        "Item#b #1 receiveEvent passed",
        "Root #2 handleEvent(ItemSelected) passed",
      })
    end)
    assert.equal(table.concat({
      "--- expected",
      "+++ actual",
      "  event ItemSelected{item=\"b\"} from Item#b",
      "  Item#b #1 receiveEvent passed",
      "- Root #2 handleEvent(ItemSelected) passed",
      "+ Grid #1 transformEvent(FirstEvent) skipped",
      "+ Root #2 handleEvent(ItemSelected) handled",
    }, "\n"), e.diff)
    assert.equal(TRACE, e.trace)
  end)
end)

describe("assert.trace wildcards", function()
  it("let spaces around * be optional", function()
    assert.trace(handled, {
      "event * from Item#b",
      "Item#b * receiveEvent * passed",
      "Grid * skipped",
      "Root * handleEvent(ItemSelected) * handled",
    })
    local ok = pcall(function() assert.trace(handled, { "event * from Item#c", "*", "*", "*" }) end)
    assert.is_false(ok)
  end)
end)
