-- Misusing the framework's own functions gives an error at the caller's line that says what was
-- expected (the framework's bytecode carries no local names, so a message must not rely on them).
describe("framework misuse", function()
  local function fails(fn)
    local ok, e = pcall(fn)
    assert.is_false(ok)
    return tostring(e)
  end

  it("assert:register needs a string name", function()
    local e = fails(function() assert:register("assertion", 5, function() end) end)
    assert.truthy(e:find("misuse_spec.lua:%d+: assert:register%(%): the name must be a string %(got number%)"), e)
  end)

  it("add_formatter needs a function", function()
    local e = fails(function() assert:add_formatter(5) end)
    assert.truthy(e:find("misuse_spec.lua:%d+: add_formatter%(%): a formatter must be a function %(got number%)"), e)
    e = fails(function() assert:add_formatter("x") end)
    assert.truthy(e:find("misuse_spec.lua:%d+: add_formatter%(%): a formatter must be a function %(got string%)"), e)
  end)

  it("spy assertions need a spy", function()
    local e = fails(function() assert.spy(function() end).was.called_with(1) end)
    assert.truthy(e:find("misuse_spec.lua:%d+: 'called_with' must be chained after 'spy%(aspy%)'"), e)
    e = fails(function() assert.stub(function() end).was.returned_with(1) end)
    assert.truthy(e:find("misuse_spec.lua:%d+: 'returned_with' must be chained after 'spy%(aspy%)'"), e)
  end)

  it("assert.no_warnings takes a function or nothing", function()
    local e = fails(function() assert.no_warnings(5) end)
    assert.truthy(e:find("misuse_spec.lua:%d+: assert.no_warnings%(%): expected a function or nothing %(got number%)"), e)
    assert.no_warnings()
    assert.no_warnings(function() end)
  end)
end)
