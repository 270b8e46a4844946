-- busted-compatibility specs (see assertions_spec.lua): environments, insulate/expose, randomize,
-- the call forms and what cannot be called where. Their globals are the point.
-- luacheck: globals shared_in_describe only_here leaked_through_G exposed_value

describe("globals", function()
  shared_in_describe = "describe"
  it("a test sees its describe's globals", function() assert.equal("describe", shared_in_describe) end)
  it("a test writes its own", function() only_here = 1 end)
  it("a sibling does not see it", function() assert.is_nil(only_here) end)
end)

describe("later describe", function()
  it("does not see an earlier describe's globals", function() assert.is_nil(shared_in_describe) end)
end)

insulate("insulate", function()
  _G.leaked_through_G = true
  it("sees its own _G change", function() assert.is_true(leaked_through_G) end)
end)

describe("after insulate", function()
  it("the _G change is gone", function() assert.is_nil(leaked_through_G) end)
end)

insulate("outer insulate", function()
  expose("expose", function()
    exposed_value = "exposed"
    it("sees it", function() assert.equal("exposed", exposed_value) end)
  end)
  it("an expose shares with its parent", function() assert.equal("exposed", exposed_value) end)
end)

describe("randomize", function()
  local order = {}
  randomize(1234)
  for i = 1, 5 do
    it("test " .. i, function() order[#order + 1] = i end)
  end
  describe("check", function()
    it("ran in the seeded order", function()
      -- busted shuffles the block's children (the five tests and this describe) with
      -- math.randomseed(seed) and math.random: replay that, keep the tests before "check"
      local expected = { 1, 2, 3, 4, 5, "check" }
      math.randomseed(1234)
      local n = #expected
      while n >= 2 do
        local k = math.random(n)
        expected[n], expected[k] = expected[k], expected[n]
        n = n - 1
      end
      local before = {}
      for _, v in ipairs(expected) do
        if v == "check" then break end
        before[#before + 1] = v
      end
      assert.same(before, order)
    end)
  end)
end)

describe "call form" (function()
  it "works" (function() assert.is_true(true) end)
  it "fails" (function() assert.is_true(false) end)
end)

describe("not supported inside a test", function()
  it("describe", function() describe("x", function() end) end)
  it("randomize", function() randomize() end)
  it("before_each", function() before_each(function() end) end)
  it("the message", function()
    assert.has_error(function() it("y", function() end) end, "'it' not supported inside current context block")
  end)
end)

describe("lazy and strict", function()
  local count = 0
  describe("no tests", function()
    lazy_setup(function() count = count + 1 end)
    strict_setup(function() count = count + 10 end)
  end)
  it("only the strict setup ran", function() assert.equal(10, count) end)
end)

describe("finally", function()
  it("an error in finally is an error", function() finally(function() error("late") end) end)
  it("a failure in finally is an error too", function() finally(function() assert.is_true(false) end) end)
end)
