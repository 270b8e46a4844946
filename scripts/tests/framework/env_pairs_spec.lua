-- pairs(_ENV) inside a spec lists every name the running block sees, with the value a lookup gives:
-- the test's own names (finally, pending), the blocks' (randomize, names the blocks set), busted's
-- and luassert's (describe, it, assert, spy, …) and the globals (print, View, …).

local function names()
  local seen, count = {}, {}
  for k, v in pairs(_ENV) do
    seen[k] = v
    count[k] = (count[k] or 0) + 1
  end
  return seen, count
end

describe("pairs(_ENV) in a spec", function()
  block_value = "set by the block" -- luacheck: ignore 111 (a block's global write, seen by its tests)

  it("lists the test's, the blocks', the framework's names and the globals, each once", function()
    local seen, count = names()
    for _, name in ipairs({ "describe", "it", "insulate", "expose", "lazy_setup", "strict_teardown", "setup",
                            "assert", "spy", "stub", "mock", "match", "finally", "pending", "randomize",
                            "print", "View", "Button", "responder", "block_value" }) do
      assert.is_not_nil(seen[name], name)
      assert.equal(1, count[name], name)
    end
    assert.equal(finally, seen.finally)
    assert.equal(assert, seen.assert)
    assert.equal(View, seen.View)
    assert.equal("set by the block", seen.block_value)
    assert.is_nil(seen.no_such_name)
  end)

  it("gives the test's own names, not the plain globals", function()
    local seen = names()
    assert.are_not.equal(rawget(_G, "assert"), seen.assert)
    assert.is_nil(rawget(_G, "describe"))
    assert.is_function(seen.describe)
  end)
end)
