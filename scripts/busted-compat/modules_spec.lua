-- busted-compatibility specs (see assertions_spec.lua): the modules a spec requires resolve to
-- the framework's own objects, and busted's publish/subscribe (its mediator) on a spec's own
-- channels.
local busted = require("busted")

describe("require", function()
  it("luassert's parts are the objects the spec already has", function()
    assert.equal(spy, require("luassert.spy"))
    assert.equal(stub, require("luassert.stub"))
    assert.equal(mock, require("luassert.mock"))
    assert.equal(match, require("luassert.match"))
    assert.equal(assert, require("luassert"))
  end)

  it("luassert.state snapshots and reverts", function()
    local state = require("luassert.state")
    local snap = state.snapshot()
    local t = { f = function() return 1 end }
    stub(t, "f")
    assert.is_nil(t.f())
    snap:revert()
    assert.equal(1, t.f())
  end)

  it("a formatter added can be removed", function()
    local function angle(v) if v == "y" then return "<y>" end end
    assert:add_formatter(angle)
    assert.equal("<y>", assert:format({ "y", n = 1 })[1])
    assert:remove_formatter(angle)
    assert.equal("(string) 'y'", assert:format({ "y", n = 1 })[1])
  end)

  it("busted's describe and it are the ones the spec uses", function()
    assert.equal("function", type(busted.describe))
    assert.equal("function", type(busted.it))
    assert.equal("function", type(busted.pending))
  end)
end)

describe("publish and subscribe", function()
  it("a publish reaches the channel, then its parents, collecting first results", function()
    local seen = {}
    busted.subscribe({ "mine", "leaf" }, function(a, b) seen[#seen + 1] = "leaf " .. a .. b; return "v1", true end)
    busted.subscribe({ "mine" }, function(a) seen[#seen + 1] = "parent " .. a; return "v2", true end)
    local result = busted.publish({ "mine", "leaf" }, "x", "y")
    assert.same({ "v1", "v2" }, result)
    assert.same({ "leaf xy", "parent x" }, seen)
  end)

  it("a subscriber that does not ask to continue stops the publish", function()
    local seen = {}
    busted.subscribe({ "stops" }, function() seen[#seen + 1] = "first"; return "only" end)
    busted.subscribe({ "stops" }, function() seen[#seen + 1] = "second" end)
    assert.same({ "only" }, busted.publish({ "stops" }))
    assert.same({ "first" }, seen)
  end)

  it("unsubscribe takes the subscriber's id", function()
    local calls = 0
    local sub = busted.subscribe({ "gone" }, function() calls = calls + 1; return nil, true end)
    assert.equal("number", type(sub.id))
    busted.publish({ "gone" })
    busted.unsubscribe(sub.id, { "gone" })
    busted.publish({ "gone" })
    assert.equal(1, calls)
  end)

  it("priority puts a subscriber first; a predicate can skip it", function()
    local order = {}
    busted.subscribe({ "ordered" }, function() order[#order + 1] = "a"; return nil, true end)
    busted.subscribe({ "ordered" }, function() order[#order + 1] = "b"; return nil, true end, { priority = 1 })
    busted.subscribe({ "ordered" }, function() order[#order + 1] = "c"; return nil, true end,
      { predicate = function(x) return x == "yes" end })
    busted.publish({ "ordered" }, "no")
    assert.same({ "b", "a" }, order)
    busted.publish({ "ordered" }, "yes")
    assert.same({ "b", "a", "b", "a", "c" }, order)
  end)

  it("fails when a collected result is wrong (checks the check)", function()
    busted.subscribe({ "wrong" }, function() return "w" end)
    assert.same({ "not w" }, busted.publish({ "wrong" }))
  end)
end)
