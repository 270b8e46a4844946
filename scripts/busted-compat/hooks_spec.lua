-- busted-compatibility specs (see assertions_spec.lua): failing hooks and describe bodies,
-- pending from inside a test, nested names.

describe("before_each breaks", function()
  before_each(function() error("hook broke") end)
  it("first is not run", function() end)
  it("second is not run", function() end)
  after_each(function() error("after broke") end)
end)

describe("after_each breaks", function()
  it("still passes itself", function() end)
  after_each(function() error("after broke") end)
  teardown(function() error("teardown broke") end)
end)

describe("setup breaks", function()
  setup(function() error("setup broke") end)
  it("never runs", function() end)
end)

describe("describe body breaks", function()
  it("registered before the error", function() end)
  error("describe body")
end)

describe("pending", function()
  pending("declared pending")
  it("pending inside", function() pending("not yet") end)
  it("assertion in after_each", function() end)
  after_each(function() assert.is_true(false) end)
end)

describe("a", function()
  describe("b", function()
    describe("c", function()
      it("deep pass", function() end)
      it("deep fail", function() assert.same({ 1 }, { 2 }) end)
    end)
  end)
end)
