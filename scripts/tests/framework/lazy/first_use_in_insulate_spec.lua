-- The framework's lazily loaded parts (spies/stubs/mocks, matchers, formatters and say,
-- luassert.util, busted's API) work when a spec first uses them inside `insulate`, and stay the
-- same working objects once the insulated block has restored the globals and package.loaded.
-- Each spec file has a fresh state: nothing here has been loaded before the first `insulate`.
local seen = {}

insulate("first use inside insulate", function()
  it("spies, stubs and mocks", function()
    local s = spy.new(function(x) return x * 2 end)
    assert.equal(4, s(2))
    assert.spy(s).was.called_with(2)
    local t = { f = function() return "real" end }
    stub(t, "f").returns("stubbed")
    assert.equal("stubbed", t.f())
    assert.stub(t.f).was.called(1)
    local m = mock({ g = function() return 1 end })
    m.g()
    assert.spy(m.g).was.called(1)
    seen.spy, seen.stub, seen.mock = require("luassert.spy"), require("luassert.stub"), require("luassert.mock")
  end)

  it("matchers", function()
    local s = spy.new(function() end)
    s("text", 3)
    assert.spy(s).was.called_with(match.is_string(), match.is_number())
    assert.is_true(match.is_table()({}))
    seen.match = require("luassert.match")
  end)

  it("formatters and say", function()
    local ok, e = pcall(assert.same, { 1 }, { 2 })
    assert.is_false(ok)
    assert.matches("Expected objects to be the same", tostring(e), 1, true)
    local say = require("say")
    say:set("lazy.spec.key", "lazy %s")
    assert.equal("lazy x", say("lazy.spec.key", { "x" }))
    seen.say = say
  end)

  it("luassert.util and busted's API", function()
    local util = require("luassert.util")
    assert.is_true(util.deepcompare({ a = { 1 } }, { a = { 1 } }))
    assert.equal("function", type(require("busted").subscribe))
    seen.util = util
  end)
end)

describe("after the insulated block", function()
  it("the parts are the same objects and still work", function()
    assert.equal(spy, seen.spy)
    assert.equal(stub, seen.stub)
    assert.equal(mock, seen.mock)
    assert.equal(match, seen.match)
    assert.equal(seen.say, require("say"))
    assert.equal(seen.util, require("luassert.util"))
    local s = spy.new(function() end)
    s(1)
    assert.spy(s).was.called_with(match.is_number())
    assert.has_error(function() assert.same({ 1 }, { 2 }) end)
  end)
end)
