-- The busted/luassert-compatible assertions of `responder test` (SPEC §3).

local function failure_of(fn)
  local ok, e = pcall(fn)
  assert.is_false(ok)
  return e
end

local function line_here(fn)
  local _, e = pcall(fn)
  return tonumber(tostring(e):match(":(%d+):"))
end

describe("assert.equal", function()
  it("passes on equal values, in every chain form", function()
    assert.equal(1, 1)
    assert.equals("a", "a")
    assert.are.equal(true, true)
    assert.is.equal(2.5, 2.5)
    assert.are_not.equal(1, 2)
    assert.is_not.equal("a", "b")
    assert.not_equal(1, 2)
  end)

  it("fails with the spec's file:line and the values", function()
    local e = failure_of(function() assert.are.equal(1, 2) end); local here = line_here(function() error("x") end)
    assert.equal("assert_spec.lua:" .. here, e.location:match("[^/]*$"))
    assert.truthy(e.message:find("Expected objects to be equal", 1, true))
    assert.truthy(e.message:find("(number) 2", 1, true))
    assert.truthy(tostring(e):find("assert_spec.lua:" .. here .. ": Expected", 1, true))
  end)

  it("compares tables by identity", function()
    local t = {}
    assert.equal(t, t)
    failure_of(function() assert.equal({}, {}) end)
  end)

  it("diffs multi-line strings", function()
    local e = failure_of(function() assert.equal("a\nb\nc", "a\nB\nc") end)
    assert.equal("--- expected\n+++ actual\n  a\n- b\n+ B\n  c", e.diff)
  end)

  it("prepends a custom message", function()
    local e = failure_of(function() assert.equal(1, 2, "custom words") end)
    assert.truthy(e.message:find("^[^\n]-assert_spec%.lua:%d+: custom words\nExpected objects to be equal%."))
  end)
end)

describe("assert.same", function()
  it("compares deeply", function()
    assert.same({ 1, 2, { a = "x" } }, { 1, 2, { a = "x" } })
    assert.are.same({}, {})
    assert.are_not.same({ 1 }, { 2 })
    assert.is_not.same({ a = 1 }, { a = 1, b = 2 })
  end)

  it("shows a -/+ diff with sorted keys", function()
    local e = failure_of(function() assert.are.same({ b = 2, a = 1, c = { 1 } }, { a = 1, b = 3, c = { 1 } }) end)
    assert.equal(table.concat({
      "--- expected",
      "+++ actual",
      "  {",
      "    a = 1,",
      "-   b = 2,",
      "+   b = 3,",
      "    c = {",
      "      [1] = 1,",
      "    },",
      "  }",
    }, "\n"), e.diff)
  end)

  it("survives cycles", function()
    local a = {}; a.self = a
    local b = {}; b.self = b
    assert.same(a, b)
    local e = failure_of(function() assert.same(a, { self = 1 }) end)
    assert.truthy(e.diff:find("<cycle>", 1, true))
  end)
end)

describe("truthiness", function()
  it("has every form", function()
    assert.is_true(true)
    assert.is.True(true)
    assert.is_false(false)
    assert.is_not_true(1)
    assert.truthy(0)
    assert.is.truthy("")
    assert.falsy(nil)
    assert.is_falsy(false)
    assert.is_not.truthy(nil)
    assert.is_nil(nil)
    assert.is_not_nil(false)
    assert.is.Nil(nil)
  end)

  it("fails when the value is wrong", function()
    failure_of(function() assert.is_true(1) end)
    failure_of(function() assert.is_false(nil) end)
    failure_of(function() assert.truthy(false) end)
    failure_of(function() assert.falsy(0) end)
    failure_of(function() assert.is_nil(false) end)
    failure_of(function() assert.is_not_nil(nil) end)
  end)

  it("keeps plain assert(v, msg) working", function()
    assert.equal(5, assert(5, "unused"))
    local e = failure_of(function() assert(false, "plain message") end)
    assert.equal("plain message", (e.message:gsub("^[^\n]-assert_spec%.lua:%d+: ", "")))
    assert.equal(e.location .. ": plain message", tostring(e))
  end)
end)

describe("errors", function()
  it("has_error with and without an expected value", function()
    assert.has_error(function() error("boom") end)
    assert.has_error(function() error("boom") end, "boom")
    assert.has_error(function() error({ code = 1 }) end, { code = 1 })
    assert.has_no.errors(function() end)
    assert.has_no_error(function() end)
    failure_of(function() assert.has_error(function() end) end)
    failure_of(function() assert.has_error(function() error("a") end, "b") end)
  end)

  it("error_matches uses Lua patterns on the message without its position", function()
    assert.error_matches(function() error("value 42 is bad") end, "^value %d+")
    assert.error_matches(function() error("a.b") end, "a.b", 1, true)
    failure_of(function() assert.error_matches(function() error("x") end, "y") end)
    failure_of(function() assert.error_matches(function() end, "y") end)
  end)
end)

describe("other luassert assertions", function()
  it("types, near, matches, unique", function()
    assert.is_string("s")
    assert.is_number(1)
    assert.is_table({})
    assert.is_function(print)
    assert.is_boolean(false)
    assert.is_not_string(1)
    assert.near(1.0, 1.05, 0.1)
    assert.matches("^ab", "abc")
    assert.is_not.matches("^b", "abc")
    assert.unique({ 1, 2, 3 })
    assert.is_not.unique({ 1, 1 })
  end)

  it("rejects unknown assertions with a clear error", function()
    local ok, e = pcall(function() assert.is.shiny(1) end)
    assert.is_false(ok)
    assert.truthy(tostring(e):find("^[^\n]-assert_spec%.lua:%d+: luassert: unknown modifier/assertion: 'is_shiny'$"))
  end)
end)
