-- Comparing, printing and iterating values: work bounded by what is shown or compared, never by
-- the number of paths through values that share values, and no way around immutability.
-- (adversary probe of the session that moved a value's few fields into its userdata)

describe("values that share values", function()
  local E = Event "E"
  local function build(depth, leaf)
    local v = E { leaf = leaf }
    for _ = 1, depth do v = E { x = v, y = v } end
    return v
  end

  it("compare each pair once: 60 levels of E{x = v, y = v} (2^60 paths) compare at once", function()
    assert.is_true(build(60, true) == build(60, true))
    assert.is_false(build(60, true) == build(60, false))
  end)

  it("print within the description's budget, however many paths", function()
    local text = tostring(build(60, true))
    assert.is_true(#text <= 64 * 1024 + 200)
    assert.are.equal("E{x=E{x=E{x=", text:sub(1, 12))
  end)

  it("an unhandled one is reported at once (the warning prints it)", function()
    local root = View "Root"
    local kinds = {}
    assert.warns("unhandledEvent", function()
      local o = root:trigger(build(60, true))
      kinds[#kinds + 1] = o.handled
    end)
    assert.are.same({ false }, kinds)
  end)
end)

describe("a value of many fields", function()
  it("prints its first fields and counts the rest", function()
    local t = {}
    for i = 1, 200000 do t[i] = i end
    local text = tostring(Event "Big" (t))
    assert.is_true(#text <= 64 * 1024 + 200)
    assert.are.equal("Big{[1]=1, [2]=2, [3]=3", text:sub(1, 23))
    assert.is_truthy(text:match "… %(%d+ more fields%)}$")
  end)
end)

describe("pairs over a value", function()
  it("iterates the fields with the value itself as its state, so nothing can be written into them", function()
    local E = Event "E"
    for _, fields in ipairs { { k1 = 1 }, { k1 = 1, a = 2, b = 3, c = 4, d = 5, e = 6, f = 7, g = 8, h = 9 } } do
      local e = E(fields)
      local _, state = pairs(e)
      assert.are.equal(e, state)
      assert.is_true(rawequal(e, state))
      assert.has_error(function() state.k1 = "changed" end)
      assert.are.equal(1, e.k1)
      local seen = 0
      for k, v in pairs(e) do
        seen = seen + 1
        assert.are.equal(fields[k], v)
      end
      local n = 0
      for _ in next, fields do n = n + 1 end
      assert.are.equal(n, seen)
    end
  end)

  it("its iterator refuses a key that is no field, and a state that is no value, as next does", function()
    local E = Event "E"
    local e = E { a = 1 }
    local iterate = pairs(e)
    assert.has_error(function() iterate(e, "missing") end, "invalid key to 'next'")
    assert.has_error(function() iterate({}, nil) end, "bad argument #1 to 'next' (event or error value expected)")
  end)
end)

describe("pairs over an outcome", function()
  it("refuses a key that is no field of an outcome (it started over: a loop by hand never ended)", function()
    local E = Event "E"
    local root = View "Root"
    root:handleEvent(E, function() end)
    local o = root:trigger(E {})
    local iterate, state = pairs(o)
    local keys = {}
    local k = iterate(state, nil)
    while k do
      keys[#keys + 1] = k
      k = iterate(state, k)
    end
    assert.are.same({ "handled", "by", "responder", "value", "trace" }, keys)
    assert.has_error(function() iterate(state, "bogus") end)
  end)
end)
