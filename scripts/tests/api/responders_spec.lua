-- Responder kinds, typed and untyped, filters with subtypes, ctx, chaining (SPEC §2.4).

local ItemSelected = Event "ItemSelected"
local Other = Event "Other"
local Base = Event "Base"
local Sub = Event("Sub", Base)
local LoadFailed = Error "LoadFailed"
local NetworkError = Error "NetworkError"
local Timeout = Error("Timeout", NetworkError)

local function tree()
  local root = View "Root" { View "Grid" { View "Item" { id = "b" } } }
  return root, root:find("Grid"), root:find("#b")
end

describe("receiveEvent", function()
  it("untyped: true handles and stops", function()
    local root, grid, item = tree()
    local rootCalled = false
    grid:receiveEvent(function(e) return true end)
    root:handleEvent(function() rootCalled = true end)
    local o = item:trigger(ItemSelected { item = "b" })
    assert.handled(o, grid)
    assert.equal("receiveEvent", o.responder)
    assert.is_false(rootCalled)
  end)

  it("untyped: false or nil passes the original event on", function()
    local root, grid, item = tree()
    local seen = {}
    item:receiveEvent(function(e) seen[#seen + 1] = e; return false end)
    grid:receiveEvent(function(e) seen[#seen + 1] = e end)
    root:handleEvent(function(e) seen[#seen + 1] = e end)
    local ev = ItemSelected { item = "b" }
    local o = item:trigger(ev)
    assert.handled(o, root)
    assert.equal(3, #seen)
    assert.equal(ev, seen[1])
    assert.equal(ev, seen[2])
    assert.equal(ev, seen[3])
    assert.equal(ev, o.value)
  end)

  it("typed: only matching events call the function", function()
    local root, grid, item = tree()
    local calls = 0
    grid:receiveEvent(ItemSelected, function(e) calls = calls + 1; return true end)
    root:handleEvent(function() end)
    assert.handled(item:trigger(Other()), root)
    assert.equal(0, calls)
    assert.handled(item:trigger(ItemSelected()), grid)
    assert.equal(1, calls)
  end)

  it("typed filter matches subtypes", function()
    local root, grid, item = tree()
    local got
    grid:receiveEvent(Base, function(e) got = e; return true end)
    local o = item:trigger(Sub { n = 1 })
    assert.handled(o, grid)
    assert.equal(Sub, got.type)
  end)

  it("typed filter on a subtype does not match the parent type", function()
    local root, grid, item = tree()
    local called = false
    grid:receiveEvent(Sub, function() called = true; return true end)
    root:handleEvent(function() end)
    assert.handled(item:trigger(Base()), root)
    assert.is_false(called)
  end)
end)

describe("handleEvent", function()
  it("untyped always stops, whatever the function returns", function()
    local root, grid, item = tree()
    local rootCalled = false
    grid:handleEvent(function() return false end)
    root:handleEvent(function() rootCalled = true end)
    local o = item:trigger(Other())
    assert.handled(o, grid)
    assert.equal("handleEvent", o.responder)
    assert.is_false(rootCalled)
  end)

  it("typed passes non-matching events through untouched", function()
    local root, grid, item = tree()
    local gridCalled = false
    grid:handleEvent(ItemSelected, function() gridCalled = true end)
    root:handleEvent(Other, function() end)
    local o = item:trigger(Other { x = 1 })
    assert.handled(o, root)
    assert.is_false(gridCalled)
    assert.equal("Other{x=1}", tostring(o.value))
  end)
end)

describe("transformEvent", function()
  it("untyped: the returned event goes on", function()
    local root, grid, item = tree()
    local got
    grid:transformEvent(function(e) return Other { from = e.item } end)
    root:handleEvent(function(e) got = e end)
    local o = item:trigger(ItemSelected { item = "b" })
    assert.handled(o, root)
    assert.equal(Other, got.type)
    assert.equal("b", got.from)
    assert.equal(got, o.value)
  end)

  it("typed: later typed responders filter on the new type", function()
    local root, grid, item = tree()
    local hitSelected = false
    grid:transformEvent(ItemSelected, function(e) return Other() end)
    root:handleEvent(ItemSelected, function() hitSelected = true end)
    root:handleEvent(Other, function() end)
    local o = item:trigger(ItemSelected())
    assert.handled(o, root)
    assert.is_false(hitSelected)
    assert.equal(Other, o.value.type)
  end)

  it("typed: non-matching events are not transformed", function()
    local root, grid, item = tree()
    grid:transformEvent(ItemSelected, function() return Other() end)
    root:handleEvent(function() end)
    local o = item:trigger(Base())
    assert.equal(Base, o.value.type)
  end)

  it("may return the same event", function()
    local root, grid, item = tree()
    grid:transformEvent(function(e) return e end)
    root:handleEvent(function() end)
    local ev = ItemSelected { item = "z" }
    assert.equal(ev, item:trigger(ev).value)
  end)
end)

describe("receiveError", function()
  it("untyped: true handles, false passes the same error on", function()
    local root, grid, item = tree()
    local seen = {}
    item:receiveError(function(e) seen[#seen + 1] = "item"; return false end)
    grid:receiveError(function(e) seen[#seen + 1] = "grid"; return true end)
    root:handleError(function() seen[#seen + 1] = "root" end)
    local err = LoadFailed { code = 1 }
    local o = item:report(err)
    assert.handled(o, grid)
    assert.equal("receiveError", o.responder)
    assert.equal(err, o.value)
    assert.same({ "item", "grid" }, seen)
  end)

  it("typed: matches subtypes and skips others", function()
    local root, grid, item = tree()
    local got = {}
    grid:receiveError(NetworkError, function(e) got[#got + 1] = e.name; return true end)
    root:handleError(function() got[#got + 1] = "root" end)
    assert.handled(item:report(Timeout()), grid)
    assert.handled(item:report(LoadFailed()), root)
    assert.same({ "Timeout", "root" }, got)
  end)
end)

describe("handleError", function()
  it("untyped always stops", function()
    local root, grid, item = tree()
    local rootCalled = false
    grid:handleError(function() return false end)
    root:handleError(function() rootCalled = true end)
    local o = item:report(LoadFailed())
    assert.handled(o, grid)
    assert.equal("handleError", o.responder)
    assert.is_false(rootCalled)
  end)

  it("typed passes other errors on", function()
    local root, grid, item = tree()
    grid:handleError(LoadFailed, function() end)
    root:handleError(function() end)
    assert.handled(item:report(LoadFailed()), grid)
    assert.handled(item:report(Timeout()), root)
  end)
end)

describe("transformError", function()
  it("untyped: the returned error goes on", function()
    local root, grid, item = tree()
    grid:transformError(function(e) return NetworkError { wrapped = e.name } end)
    local got
    root:handleError(NetworkError, function(e) got = e end)
    local o = item:report(LoadFailed())
    assert.handled(o, root)
    assert.equal("LoadFailed", got.wrapped)
    assert.equal(got, o.value)
  end)

  it("typed: only matching errors are transformed", function()
    local root, grid, item = tree()
    grid:transformError(LoadFailed, function() return Timeout() end)
    root:handleError(function() end)
    assert.equal(Timeout, item:report(LoadFailed()).value.type)
    assert.equal(NetworkError, item:report(NetworkError()).value.type)
  end)
end)

describe("catchError", function()
  it("untyped: stops the error and starts the returned event", function()
    local root, grid, item = tree()
    local got
    grid:catchError(function(e) return Other { reason = e.name } end)
    root:handleEvent(Other, function(e) got = e end)
    root:handleError(function() error("must not be reached") end)
    local o = item:report(LoadFailed())
    assert.handled(o, root)
    assert.equal("LoadFailed", got.reason)
    assert.equal("handleEvent", o.responder)
    assert.equal(got, o.value)
  end)

  it("typed: other errors are passed on unchanged", function()
    local root, grid, item = tree()
    local caught = 0
    grid:catchError(NetworkError, function() caught = caught + 1; return Other() end)
    root:handleError(function() end)
    root:handleEvent(function() end)
    local o1 = item:report(LoadFailed())
    assert.equal(LoadFailed, o1.value.type)
    assert.equal("handleError", o1.responder)
    local o2 = item:report(Timeout())
    assert.equal(Other, o2.value.type)
    assert.equal(1, caught)
  end)
end)

describe("events and errors are separate", function()
  it("event responders ignore errors and error responders ignore events", function()
    local root, grid, item = tree()
    local log = {}
    grid:handleEvent(function() log[#log + 1] = "event responder" end)
    grid:handleError(function() log[#log + 1] = "error responder" end)
    item:report(LoadFailed())
    item:trigger(Other())
    assert.same({ "error responder", "event responder" }, log)
  end)
end)

describe("ctx", function()
  it("has node, origin and the fixed path", function()
    local root, grid, item = tree()
    local ctx1
    root:handleEvent(function(e, ctx) ctx1 = ctx end)
    item:trigger(Other())
    assert.equal(root, ctx1.node)
    assert.equal(item, ctx1.origin)
    assert.equal(3, #ctx1.path)
    assert.equal(item, ctx1.path[1])
    assert.equal(grid, ctx1.path[2])
    assert.equal(root, ctx1.path[3])
  end)

  it("is given to error responders too", function()
    local root, grid, item = tree()
    local node, origin
    grid:handleError(function(e, ctx) node, origin = ctx.node, ctx.origin end)
    item:report(LoadFailed())
    assert.equal(grid, node)
    assert.equal(item, origin)
  end)
end)

describe("registration", function()
  it("every registration returns the node for chaining", function()
    local root = View "Root"
    local f = function() end
    assert.equal(root, root:receiveEvent(f))
    assert.equal(root, root:handleEvent(Other, f))
    assert.equal(root, root:transformEvent(function(e) return e end))
    assert.equal(root, root:receiveError(f))
    assert.equal(root, root:handleError(LoadFailed, f))
    assert.equal(root, root:transformError(function(e) return e end))
    assert.equal(root, root:catchError(function() return Other() end))
    assert.equal(root, root:triggers(Other))
    assert.equal(root, root:reports(LoadFailed))
    assert.equal(9, #root:responders())
  end)

  it("chained registrations keep registration order", function()
    local root = View "Root"
    local log = {}
    root:receiveEvent(function() log[#log + 1] = 1 end)
        :receiveEvent(function() log[#log + 1] = 2 end)
        :handleEvent(function() log[#log + 1] = 3 end)
    root:trigger(Other())
    assert.same({ 1, 2, 3 }, log)
  end)
end)

describe("the LuaError of a wrong return", function()
  it("has a traceback and the node, as a runtime error's", function()
    local E = Event "WrongReturnE"
    local r = View "R"
    local got
    r:transformEvent(function() return nil end)
    r:handleError(function(e) got = e end)
    r:trigger(E {})
    assert.matches("transformEvent registered here returned nil %(an event expected%)", got.message)
    assert.equal(r, got.node)
    assert.equal("string", type(got.traceback))
    assert.matches("stack traceback:", got.traceback)
  end)
end)

describe("safetyLevel's argument", function()
  it("names what was given", function()
    assert.error_matches(function() View "A":safetyLevel(1) end,
      "bad argument #1 to 'safetyLevel' (\"relaxed\", \"strict\" or \"disabled\" expected, got number)", 1, true)
  end)
end)
