-- Long cause chains (found by scripts/fuzz, seed 20261202): an error raised in each of many error
-- responders makes a chain of causes as long as the list. Pushing such a value to Lua (the
-- outcome's value, a responder's argument) wrote one Lua stack slot per link without checking for
-- room, past the end of the stack (heap corruption: a crash when the state closed, or a bad free
-- under the sanitizer step); turning it into a Swift value recursed once per link.

describe("a long cause chain", function()
  local function chain(n)
    local root = View "Root"
    root:safetyLevel("disabled")
    local Er = Error "Er"
    for _ = 1, n do root:transformError(function() error() end) end
    return root:report(Er { }), root
  end

  local function depth(v)
    local d = 0
    while v do d, v = d + 1, v.cause end
    return d
  end

  it("of 60 links reaches Lua whole", function()
    local outcome = chain(60)
    assert.is_false(outcome.handled)
    assert.equal(61, depth(outcome.value))
    assert.equal("nil", outcome.value.message)
  end)

  it("of 2,000 links reaches Lua whole and goes back into the engine", function()
    local outcome, root = chain(2000)
    assert.equal(2001, depth(outcome.value))
    local seen
    root:removeResponder("x")
    local other = View "Other"
    other:handleError(function(e) seen = e end)
    other:report(outcome.value)
    assert.equal(2001, depth(seen))
  end)
end)
