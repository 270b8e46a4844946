-- describe/it/hooks: order, nesting, full names, pending, finally.

local log = {}

describe("hooks", function()
  setup(function() log[#log + 1] = "setup" end)
  teardown(function() log[#log + 1] = "teardown" end)
  before_each(function() log[#log + 1] = "before outer" end)
  after_each(function() log[#log + 1] = "after outer" end)

  it("runs setup once and before_each before every test", function()
    assert.same({ "setup", "before outer" }, log)
  end)

  describe("nested", function()
    before_each(function() log[#log + 1] = "before inner" end)
    after_each(function() log[#log + 1] = "after inner" end)

    it("runs outer before_each first and after_each inner first", function()
      assert.same({
        "setup", "before outer",
        "after outer",
        "before outer", "before inner",
      }, log)
    end)
  end)

  it("finally runs after the test body", function()
    local n = #log
    finally(function() log[#log + 1] = "finally" end)
    assert.equal(n, #log)
  end)
end)

describe("after the hooks block", function()
  it("ran teardown and finally", function()
    assert.same({
      "setup", "before outer",
      "after outer",
      "before outer", "before inner",
      "after inner", "after outer",
      "before outer",
      "finally", "after outer",
      "teardown",
    }, log)
  end)
end)

describe("a fresh world per it", function()
  local counter = 0
  before_each(function() counter = counter + 1 end)
  it("first", function() assert.equal(1, counter) end)
  it("second", function() assert.equal(2, counter) end)
end)

describe("pending", function()
  pending("is reported as skipped")
  it("cannot be nested in a test", function()
    assert.has_error(function() it("nested") end, "'it' not supported inside current context block")
  end)
  it("can become pending from inside", function()
    pending("not yet")
    error("never reached")
  end)
end)

describe("call form", function()
  -- `it "name" (fn)`: without its function, `it` registers nothing and returns the publisher
  local publish = it("is registered once given its function")
  publish(function() assert.is_true(true) end)
  it("returns the publisher", function() assert.is_function(publish) end)
end)

describe("aliases", function()
  context("context is describe", function()
    test("test is it", function() assert.truthy(true) end)
    spec("spec is it", function() assert.truthy(true) end)
  end)
  lazy_setup(function() end)
  strict_setup(function() end)
  lazy_teardown(function() end)
  strict_teardown(function() end)
  it("works", function() end)
end)

it("works at file level too", function()
  assert.is_function(describe)
  assert.is_function(it)
  assert.is_table(spy)
end)
