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

  it("refuses a state that is no outcome", function()
    local E = Event "E"
    local root = View "Root"
    root:handleEvent(E, function() end)
    local iterate = pairs(root:trigger(E {}))
    assert.has_error(function() iterate({}, nil) end)
  end)
end)

describe("keys that are not strings or numbers", function()
  it("are described on a budget of their own: 16,000 values as keys leave room for the fields", function()
    local E = Event "E"
    local t = {}
    for i = 1, 16000 do t[E { i = i }] = i end
    local text = tostring(E(t))
    assert.is_true(#text > 60000 and #text <= 64 * 1024 + 200)
    assert.are.equal("E{[E{i=10000}]=10000, [E{i=10001}]=10001", text:sub(1, 40))
  end)

  it("keep at most 200 characters of a key's text (a __tostring of 60,000 characters, 2,000 times)", function()
    local text = string.rep("k", 60000)
    local t = {}
    for i = 1, 2000 do t[setmetatable({}, { __tostring = function() return text end })] = i end
    local before = collectgarbage "count"
    local shown = tostring(Event "E" (t))
    assert.is_true(#shown <= 64 * 1024 + 200)
    assert.is_truthy(shown:find("k… (more characters)]=", 1, true))
    assert.is_true(collectgarbage "count" - before < 16 * 1024)
  end)
end)

describe("keys in a description", function()
  it("order integers and floats exactly (math.maxinteger before 2^63)", function()
    local E = Event "E"
    assert.are.equal('E{[1]=1, [1.5]=2, [9223372036854775807]="maxint", [9.2233720368548e+18]="2^63"}',
      tostring(E { [math.maxinteger] = "maxint", [2 ^ 63] = "2^63", [1] = 1, [1.5] = 2 }))
    assert.are.equal('E{[-1.844674407371e+19]="below", [-9223372036854775808]="minint", [0]=0}',
      tostring(E { [math.mininteger] = "minint", [-2 ^ 64] = "below", [0] = 0 }))
  end)

  it("cut a long string key, and still show its field's value", function()
    local long = string.rep("q", 3000)
    local e = Event "E" { [long] = 1, a = 2 }
    local text = tostring(e)
    assert.are.equal('E{a=2, ["qqq', text:sub(1, 12))
    assert.is_truthy(text:find('… (more characters)"]=1}', 1, true))
    assert.are.equal(1, e[long])
  end)
end)

describe("the test framework's host functions after a coroutine", function()
  -- a binding called inside a coroutine pointed the runtime at the coroutine's thread; the
  -- framework's host functions then read a finished coroutine's stack (the worker crashed, or
  -- an assertion's failure read as an error about a chunk name)
  it("an assertion made in a coroutine that made a value fails as itself", function()
    local E = Event "E"
    local ok, err = pcall(function()
      coroutine.wrap(function() assert.is_nil(E {}) end)()
    end)
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("Expected objects to be the same", 1, true))
  end)

  it("values made in a finished coroutine leave later assertions working", function()
    local E = Event "E"
    coroutine.wrap(function() local _ = E { y = 1 } end)()
    assert.are.equal(2, 1 + 1)
    assert.has_error(function() error("x") end, "x")
    local co = coroutine.create(function() local _ = View "V" {}; responder.warnings() end)
    assert.is_true((coroutine.resume(co)))
    assert.are.same({ 1 }, { 1 })
  end)
end)
