-- SPEC §2.9: environment values flow down (nearest wins); appear and disappear handlers.

describe("environment", function()
  it("a node reads the nearest value set on itself or an ancestor", function()
    local root = View "Root" { View "A" { View "A1" }, View "B" }
    root:environment("theme", "dark")
    root:find("A"):environment("theme", "light")
    assert.equal("light", root:find("A1"):env("theme"))
    assert.equal("light", root:find("A"):env("theme"))
    assert.equal("dark", root:find("B"):env("theme"))
    assert.equal("dark", root:env("theme"))
  end)

  it("siblings and ancestors are unaffected by an override", function()
    local root = View "Root" { View "A", View "B" }
    root:find("A"):environment("size", 12)
    assert.is_nil(root:env("size"))
    assert.is_nil(root:find("B"):env("size"))
  end)

  it("an unset key is nil (or the default given)", function()
    local n = View "N"
    assert.is_nil(n:env("missing"))
    assert.equal(7, n:env("missing", 7))
  end)

  it("moving a node changes what it inherits", function()
    local a, b, child = View "A", View "B", View "C"
    a:environment("k", "from A")
    b:environment("k", "from B")
    a:add(child)
    assert.equal("from A", child:env("k"))
    b:add(child)
    assert.equal("from B", child:env("k"))
    child:remove()
    assert.is_nil(child:env("k"))
  end)

  it("environment returns the node and setting again replaces the value", function()
    local n = View "N"
    assert.equal(n, n:environment("k", 1))
    n:environment("k", 2)
    assert.equal(2, n:env("k"))
  end)

  it("an explicit nil overrides an ancestor's value", function()
    local root = View "Root" { View "A" }
    root:environment("k", 1)
    root:find("A"):environment("k", nil)
    assert.is_nil(root:find("A"):env("k"))
  end)

  it("a nil key is an argument error", function()
    local n = View "N"
    assert.error_matches(function() n:env(nil) end, "bad argument #1 to 'env'")
    assert.error_matches(function() n.environment(5, "k", 1) end, "calling 'environment' on bad self %(node expected, got number%)")
  end)
end)

describe("appear and disappear", function()
  it("appear runs at mount in document order", function()
    local log = {}
    local root = View "Root" { View "A" { View "A1" }, View "B" }
    for _, n in ipairs({ root, root:find("A"), root:find("A1"), root:find("B") }) do
      n:onAppear(function() log[#log + 1] = n.name end)
    end
    assert.same({}, log)
    mount(root)
    assert.same({ "Root", "A", "A1", "B" }, log)
  end)

  it("appear runs when added into a mounted tree, disappear on remove", function()
    local log = {}
    local root = View "Root"
    mount(root)
    local c = View "C" { View "D" }
    c:onAppear(function() log[#log + 1] = "appear C" end)
    c:onDisappear(function() log[#log + 1] = "disappear C" end)
    c:find("D"):onDisappear(function() log[#log + 1] = "disappear D" end)
    root:add(c)
    assert.same({ "appear C" }, log)
    c:remove()
    assert.same({ "appear C", "disappear C", "disappear D" }, log)
  end)

  it("nothing runs for trees that are not mounted", function()
    local s = spy.new(function() end)
    local root, c = View "Root", View "C"
    c:onAppear(s):onDisappear(s)
    root:add(c)
    c:remove()
    assert.spy(s).was.called(0)
  end)

  it("mounting another root makes the old tree disappear", function()
    local log = {}
    local one, two = View "One", View "Two"
    one:onDisappear(function() log[#log + 1] = "one gone" end)
    two:onAppear(function() log[#log + 1] = "two here" end)
    mount(one)
    mount(two)
    assert.same({ "one gone", "two here" }, log)
  end)

  it("an error in an appear handler is reported from its node", function()
    local root = View "Root" { View "Bad" }
    local caught
    root:handleError(function(e) caught = e end)
    root:find("Bad"):onAppear(function() error("appear failed") end)
    mount(root)
    assert.truthy(LuaError:is(caught))
    assert.truthy(caught.message:find("appear failed", 1, true))
    assert.equal(root:find("Bad"), caught.node)
  end)
end)

describe("observe's arguments", function()
  it("a NaN property name is a bad argument at the caller's line", function()
    local r = View "R" { x = 1 }
    assert.error_matches(function() r:observe(0 / 0, function() end) end,
      "bad argument #1 to 'observe' %(property name expected")
  end)
end)
