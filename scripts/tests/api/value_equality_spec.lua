-- SPEC §2.1: values are immutable, so they compare by value (found by an acceptance probe:
-- `assert.are.same(ItemSelected{item = "B"}, outcome.value)` failed showing the same text twice).

local ItemSelected, Other = Event "ItemSelected", Event "Other"
local Narrow = Event("Narrow", ItemSelected)

describe("values compare by type and fields", function()
  it("equal fields and type are equal, whatever order the fields were given in", function()
    assert.is_true(ItemSelected { item = "b", n = 1 } == ItemSelected { n = 1, item = "b" })
    assert.is_true(ItemSelected() == ItemSelected {})
    assert.equal(ItemSelected { item = "b" }, ItemSelected { item = "b" })
  end)

  it("another field, another value, a missing field or another type is not equal", function()
    assert.is_false(ItemSelected { item = "b" } == ItemSelected { item = "c" })
    assert.is_false(ItemSelected { item = "b" } == ItemSelected { item = "b", extra = true })
    assert.is_false(ItemSelected { item = "b", extra = true } == ItemSelected { item = "b" })
    assert.is_false(ItemSelected { item = "b" } == Other { item = "b" })
    assert.is_false(Narrow { item = "b" } == ItemSelected { item = "b" })
    assert.is_false(ItemSelected {} == View "V")
  end)

  it("values and plain tables in fields compare by content, as Swift's arrays and dictionaries do (found by an acceptance probe)", function()
    assert.is_true(ItemSelected { inner = Other { n = 1 } } == ItemSelected { inner = Other { n = 1 } })
    assert.is_false(ItemSelected { inner = Other { n = 1 } } == ItemSelected { inner = Other { n = 2 } })
    local t = { 1 }
    assert.is_true(ItemSelected { t = t } == ItemSelected { t = t })
    assert.is_true(ItemSelected { t = { 1, { k = "v" } } } == ItemSelected { t = { 1, { k = "v" } } })
    assert.is_true(ItemSelected { items = { "a", Other { n = 1 } } } == ItemSelected { items = { "a", Other { n = 1 } } })
    assert.is_false(ItemSelected { t = { 1 } } == ItemSelected { t = { 2 } })
    assert.is_false(ItemSelected { t = { 1 } } == ItemSelected { t = { 1, 2 } })
    assert.is_false(ItemSelected { t = { 1, 2 } } == ItemSelected { t = { 1 } })
    assert.is_false(ItemSelected { t = { k = { 1 } } } == ItemSelected { t = { k = { 2 } } })
    assert.is_false(ItemSelected { t = {} } == ItemSelected { t = "x" })
    assert.are.same(ItemSelected { items = { "a", "b" } }, ItemSelected { items = { "a", "b" } })
  end)

  it("tables with a metatable compare by identity; cycles end", function()
    local mt = {}
    assert.is_false(ItemSelected { t = setmetatable({}, mt) } == ItemSelected { t = setmetatable({}, mt) })
    local a, b = { n = 1 }, { n = 1 }
    a.self, b.self = a, b
    assert.is_true(ItemSelected { t = a } == ItemSelected { t = b })
    local c = { n = 2 }
    c.self = c
    assert.is_false(ItemSelected { t = a } == ItemSelected { t = c })
    local x, y = {}, {}
    x[1], y[1] = y, x  -- each holds the other
    assert.is_true(ItemSelected { t = x } == ItemSelected { t = y })
  end)

  it("an outcome's value can be asserted with are.same and equal", function()
    local root = View "Root"
    root:transformEvent(ItemSelected, function(e) return Other { item = e.item:upper() } end)
    root:handleEvent(Other, function() end)
    local o = root:trigger(ItemSelected { item = "b" })
    assert.are.same(Other { item = "B" }, o.value)
    assert.are_not.equal(Other { item = "b" }, o.value)
  end)

  it("a long chain of nested values compares without recursion", function()
    local a, b = Other {}, Other {}
    for _ = 1, 50000 do a, b = Other { x = a }, Other { x = b } end
    assert.is_true(a == b)
    assert.is_false(a == Other { x = b })
  end)
end)
