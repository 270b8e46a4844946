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
    assert.equal("(error object is a nil value)", outcome.value.message)
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

describe("causes of values raised again", function()
  local E = Error "E"

  it("an error its own handler raises again is not its own cause", function()
    local W, B = E { msg = "w" }, E { msg = "b" }
    local g = View "G" { View "P" { View "C" } }
    local p = g.children[1]
    local c = p.children[1]
    c:handleError(function(e) if e.msg == "w" then error(B) end end)
    p:handleError(function(e) error(e) end)
    g:handleError(function() end)
    c:report(W)
    c:report(W)
    assert.are_not.equal(B, B.cause)
    assert.equal("w", B.cause.msg)
  end)

  it("a kept outer value shows the newest cause of a link deeper in its chain", function()
    local function raiser(on, raise)
      local p = View "P" { View "C" }
      p.children[1]:handleError(function(e) if e.msg == on then error(raise) end end)
      p:handleError(function() end)
      return p.children[1]
    end
    local W, Z, X, Y = E { msg = "w" }, E { msg = "z" }, E { msg = "x" }, E { msg = "y" }
    raiser("w", Y):report(W)                -- Y.cause = W
    local kept = raiser("y", X):report(Y)   -- X.cause = Y; the outcome keeps X's Swift value
    raiser("z", Y):report(Z)                -- Y raised again: Y.cause = Z
    local sink = View "S"
    sink:handleError(function() end)
    local o = sink:report(X)
    assert.equal("z", o.value.cause.cause.msg)
    assert.equal("z", Y.cause.msg)
    assert.is_true(kept.handled)
  end)

  it("errors raised again at random, kept, dropped and collected never make a cycle", function()
    local function acyclic(v)
      local seen = {}
      while v do
        if seen[v] then return false end
        seen[v] = true
        v = v.cause
      end
      return true
    end
    for seed = 1, 4 do
      math.randomseed(seed)
      local pool, kept = {}, {}
      for i = 1, 5 do pool[i] = E { msg = "v" .. i } end
      local root = View "Root" { View "A" { View "B" { View "C" } } }
      root:safetyLevel("disabled")
      local nodes = { root, root:find("A"), root:find("B"), root:find("C") }
      for i = 2, 4 do
        nodes[i]:handleError(function(e)
          local r = math.random()
          if r < 0.5 then error(pool[math.random(#pool)]) end
          if r < 0.7 then error(e) end
        end)
      end
      root:handleError(function(e) kept[#kept + 1] = e end)
      for _ = 1, 150 do
        local r = math.random()
        if r < 0.6 then
          local o = nodes[math.random(#nodes)]:report(pool[math.random(#pool)])
          if math.random() < 0.5 then kept[#kept + 1] = o.value end
        elseif r < 0.8 and #kept > 0 then
          nodes[math.random(#nodes)]:report(kept[math.random(#kept)])
        elseif r < 0.9 then
          kept = {}
          collectgarbage()
        else
          pool[math.random(#pool)] = E { msg = "n" }
        end
        for _, v in ipairs(pool) do assert.is_true(acyclic(v)) end
        for _, v in ipairs(kept) do assert.is_true(acyclic(v)) end
      end
    end
  end)
end)
