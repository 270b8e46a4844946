-- Values are one userdata for their whole life: identity holds across dispatches, handlers,
-- outcomes and traces, and the cause the engine records is readable from Lua.
local Ping = Event "Ping"
local Boom = Error "Boom"
local Wrapped = Error "Wrapped"

describe("value identity", function()
  it("the handler, the outcome and the trace see the very value that was triggered", function()
    local root = View "Root"
    local seen
    root:handleEvent(Ping, function(e) seen = e end)
    local e = Ping { n = 1 }
    local o = root:trigger(e)
    assert.is_true(rawequal(seen, e))
    assert.is_true(rawequal(o.value, e))
    assert.is_true(rawequal(o.trace[1].value, e))
    -- again: still the same object
    local o2 = root:trigger(e)
    assert.is_true(rawequal(o2.value, e))
  end)

  it("an error thrown by an error responder carries the old one as its cause", function()
    local root = View "Root"
    local inner = View "Inner"
    root:add(inner)
    inner:handleError(Boom, function(err) error(Wrapped { why = "wrap" }) end)
    local caught
    root:handleError(Wrapped, function(err) caught = err end)
    local boom = Boom { code = 7 }
    local o = inner:report(boom)
    assert.is_true(o.handled)
    assert.equal("Wrapped", caught.name)
    assert.is_true(rawequal(caught.cause, boom))
    assert.equal(7, caught.cause.code)
    assert.is_true(rawequal(o.value, caught))
  end)

  it("values stay immutable and print with sorted keys", function()
    local v = Ping { b = 2, a = "x" }
    assert.equal('Ping{a="x", b=2}', tostring(v))
    assert.has_error(function() v.a = "y" end)
    assert.equal("x", v.a)
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.same({ "a", "b" }, keys)
  end)

  it("a value created in a loop and dropped does not accumulate", function()
    collectgarbage()
    local before = collectgarbage("count")
    for i = 1, 20000 do local _ = Ping { i = i } end
    collectgarbage()
    collectgarbage()
    assert.is_true(collectgarbage("count") - before < 64)
  end)
end)

describe("coroutines", function()
  it("bindings used inside coroutines work on the coroutine's stack, also while collecting", function()
    local E = Event "E"
    local made = 0
    local function body()
      for _ = 1, 3 do
        local n = View "N"
        n:handleEvent(E, function() end)
        made = made + 1
        coroutine.yield(n)
      end
    end
    local co = coroutine.create(body)
    for _ = 1, 60 do
      local ok, n = coroutine.resume(co)
      assert.is_true(ok)
      if n then assert.is_true(n:trigger(E {}).handled) end
      for _ = 1, 20 do View "X":handleEvent(function() end) end
      collectgarbage()
      if coroutine.status(co) == "dead" then co = coroutine.create(body) end
    end
    assert.is_true(made >= 45)
  end)
end)
