-- The framework starts without a reflective look at the global table (which would create every
-- lazily made name of the responder module in every spec file): the names still resolve on first
-- use, and the first reflective look in the spec lists them all, as in a plain script.
describe("the responder module's names in a spec", function()
  it("resolve on first use", function()
    local root = View "Root" { View "Item" { id = "a" } }
    assert.equal("Item", root:find("#a").name)
    assert.equal("function", type(mount))
  end)

  it("are all there at the first reflective look", function()
    assert.equal("function", type(rawget(_G, "Event")))
    local names = {}
    for k in pairs(_G) do names[k] = true end
    assert.is_true(names.View)
    assert.is_true(names.EventButton)
    assert.is_true(names.responder)
    assert.is_nil(getmetatable(_G))
  end)

  it("the spec's io is there", function()
    assert.equal("userdata", type(io.stdout))
    assert.equal("function", type(io.write))
  end)
end)
