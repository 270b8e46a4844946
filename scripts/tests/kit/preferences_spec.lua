-- SPEC §2.9: preferences flow up: reduced in document order; onPreferenceChange fires at mount,
-- on preference, add and remove, whenever the subtree's reduced value changes.

local function collector()
  local P = Preference("titles", {
    default = {},
    reduce = function(acc, nxt)
      local r = { table.unpack(acc) }
      r[#r + 1] = nxt
      return r
    end,
  })
  return P
end

describe("preferences", function()
  it("preferenceValue reduces the subtree's values in document order", function()
    local Titles = collector()
    local root = View "Root" { View "A" { View "A1" }, View "B" }
    root:find("B"):preference(Titles, "b")
    root:find("A1"):preference(Titles, "a1")
    root:find("A"):preference(Titles, "a")
    assert.same({ "a", "a1", "b" }, root:preferenceValue(Titles))
    assert.same({ "a", "a1" }, root:find("A"):preferenceValue(Titles))
    assert.same({ "b" }, root:find("B"):preferenceValue(Titles))
  end)

  it("the default when nobody sets a value", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    assert.equal(0, View "N":preferenceValue(Sum))
  end)

  it("setting a value again replaces the node's value", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root" { View "A", View "B" }
    root:find("A"):preference(Sum, 1)
    root:find("B"):preference(Sum, 2)
    root:find("A"):preference(Sum, 10)
    assert.equal(12, root:preferenceValue(Sum))
  end)

  it("onPreferenceChange fires at mount with the reduced value", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root" { View "A", View "B" }
    local seen = {}
    root:onPreferenceChange(Sum, function(v) seen[#seen + 1] = v end)
    root:find("A"):preference(Sum, 2)
    root:find("B"):preference(Sum, 3)
    assert.same({}, seen)
    mount(root)
    assert.same({ 5 }, seen)
  end)

  it("fires on preference, add and remove when the value changes", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root" { View "A" }
    local seen = {}
    root:onPreferenceChange(Sum, function(v) seen[#seen + 1] = v end)
    mount(root)
    root:find("A"):preference(Sum, 4)
    local b = View "B"
    b:preference(Sum, 1)
    root:add(b)
    b:remove()
    assert.same({ 0, 4, 5, 4 }, seen)
  end)

  it("does not fire when the reduced value stays the same", function()
    local Max = Preference("max", { default = 0, reduce = function(a, b) return math.max(a, b) end })
    local root = View "Root" { View "A", View "B" }
    root:find("A"):preference(Max, 10)
    local s = spy.new(function() end)
    root:onPreferenceChange(Max, s)
    mount(root)
    root:find("B"):preference(Max, 3)
    root:find("B"):remove()
    root:add(View "C")
    assert.spy(s).was.called(1)
    assert.spy(s).was.called_with(10)
  end)

  it("tables compare by content", function()
    local Titles = collector()
    local root = View "Root" { View "A" }
    local s = spy.new(function() end)
    root:onPreferenceChange(Titles, s)
    root:find("A"):preference(Titles, "a")
    mount(root)
    root:find("A"):preference(Titles, "a")
    root:add(View "Empty")
    assert.spy(s).was.called(1)
  end)

  it("handlers see only their subtree and fire innermost first", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root" { View "A" { View "A1" }, View "B" }
    local log = {}
    root:onPreferenceChange(Sum, function(v) log[#log + 1] = "root " .. v end)
    root:find("A"):onPreferenceChange(Sum, function(v) log[#log + 1] = "A " .. v end)
    root:find("B"):onPreferenceChange(Sum, function(v) log[#log + 1] = "B " .. v end)
    root:find("B"):preference(Sum, 100)
    mount(root)
    assert.same({ "root 100", "A 0", "B 100" }, log)
    log = {}
    root:find("A1"):preference(Sum, 1)
    assert.same({ "A 1", "root 101" }, log)
  end)

  it("preferences of other keys do not trigger a handler", function()
    local P1 = Preference("one", { default = 0, reduce = function(a, b) return a + b end })
    local P2 = Preference("two", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root" { View "A" }
    local s = spy.new(function() end)
    root:onPreferenceChange(P1, s)
    mount(root)
    root:find("A"):preference(P2, 5)
    assert.spy(s).was.called(1)
  end)

  it("a subtree added into a mounted tree fires its own handlers as at mount", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root"
    mount(root)
    local panel = View "Panel" { View "Item" }
    panel:find("Item"):preference(Sum, 3)
    local s = spy.new(function() end)
    panel:onPreferenceChange(Sum, s)
    root:add(panel)
    assert.spy(s).was.called(1)
    assert.spy(s).was.called_with(3)
  end)

  it("a node moved within the mounted tree fires its handlers only if its value changed", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root"
    local left, right = View "Left", View "Right"
    root:add(left); root:add(right)
    local seen = {}
    left:onPreferenceChange(Sum, function(v) seen[#seen + 1] = "left " .. v end)
    root:onPreferenceChange(Sum, function(v) seen[#seen + 1] = "root " .. v end)
    mount(root)
    assert.same({ "root 0", "left 0" }, seen)
    root:add(left, 2)          -- reordered: the values are the same
    assert.same({ "root 0", "left 0" }, seen)
    assert.equal(right, root.children[1])
    right:add(left)            -- moved under Right: still the same values
    assert.same({ "root 0", "left 0" }, seen)
    left:preference(Sum, 2)
    assert.same({ "root 0", "left 0", "left 2", "root 2" }, seen)
  end)

  it("a node removed and added again fires its handlers as at mount", function()
    local Sum = Preference("sum", { default = 0, reduce = function(a, b) return a + b end })
    local root = View "Root"
    local left = View "Left"
    root:add(left)
    local s = spy.new(function() end)
    left:onPreferenceChange(Sum, s)
    mount(root)
    assert.spy(s).was.called(1)
    left:remove()
    root:add(left)
    assert.spy(s).was.called(2)
    assert.spy(s).was.called_with(0)
  end)

  it("a preference is printable and argument errors name it", function()
    local P = Preference("size", { default = 0, reduce = function(a, b) return b end })
    assert.equal("Preference(size)", tostring(P))
    assert.equal("size", P.name)
    local n = View "N"
    assert.error_matches(function() n:preference("size", 1) end,
      "bad argument #1 to 'preference' %(preference expected, got string%)")
    assert.error_matches(function() Preference(5) end, "bad argument #1 to 'Preference'")
  end)
end)
