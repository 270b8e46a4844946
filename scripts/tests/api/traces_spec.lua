-- Traces (SPEC §2.8).

local ItemSelected = Event "ItemSelected"
local FirstEvent = Event "FirstEvent"
local Boom = Error "Boom"
local Recovered = Event "Recovered"

local function specTree()
  local root = View "Root" { View "Grid" { View "Item" { id = "b" } } }
  local item, grid = root:find("#b"), root:find("Grid")
  item:receiveEvent(function() return false end)
  grid:transformEvent(FirstEvent, function(e) return e end)
  root:receiveEvent(FirstEvent, function() return true end)
  root:handleEvent(ItemSelected, function() end)
  return root, grid, item
end

describe("tostring(trace)", function()
  it("is the stable text form of SPEC §2.8", function()
    local root, grid, item = specTree()
    local o = item:trigger(ItemSelected { item = "b" })
    local expected = table.concat({
      'event ItemSelected{item="b"} from Item#b',
      "  Item#b       #1 receiveEvent                 passed",
      "  Grid         #1 transformEvent(FirstEvent)   skipped",
      "  Root         #1 receiveEvent(FirstEvent)     skipped",
      "  Root         #2 handleEvent(ItemSelected)    handled",
    }, "\n")
    assert.equal(expected, tostring(o.trace))
  end)

  it("lastTrace is the trace of the last top-level action", function()
    local root, grid, item = specTree()
    local o = item:trigger(ItemSelected { item = "b" })
    assert.equal(tostring(o.trace), tostring(responder.lastTrace()))
    local o2 = root:trigger(FirstEvent())
    assert.equal(tostring(o2.trace), tostring(responder.lastTrace()))
    assert.are_not.equal(tostring(o.trace), tostring(o2.trace))
  end)

  it("matches with assert.trace and wildcards", function()
    local root, grid, item = specTree()
    local o = item:trigger(ItemSelected { item = "b" })
    assert.trace(o, {
      'event ItemSelected{item="b"} from Item#b',
      "  Item#b * receiveEvent * passed",
      "  Grid * skipped",
      "*",
      "  Root * handled",
    })
  end)

  it("shows an error dispatch, transformation and unhandled end", function()
    local root = View "Root" { View "Item" }
    local item = root:find("Item")
    item:transformError(function(e) return Boom { n = 2 } end)
    root:safetyLevel("disabled")
    local o = item:report(Boom { n = 1 })
    local text = tostring(o.trace)
    assert.matches("^error Boom{n=1} from Item\n", text)
    assert.matches("\n  Item         #1 transformError               transformed\n", text, 1, true)
    assert.matches("unhandled$", text)
  end)

  it("shows threw, caught and the conversions", function()
    local root = View "Root" { View "Item" }
    local item = root:find("Item")
    item:handleEvent(ItemSelected, function() error(Boom()) end)
    root:catchError(Boom, function() return Recovered() end)
    root:handleEvent(Recovered, function() end)
    local o = item:trigger(ItemSelected())
    assert.equal(table.concat({
      "event ItemSelected{} from Item",
      "  Item         #1 handleEvent(ItemSelected)    threw",
      "  Root         #1 catchError(Boom)             caught",
      "  Root         #2 handleEvent(Recovered)       handled",
    }, "\n"), tostring(o.trace))
  end)

  it("shows declarations as declared", function()
    local root = View "Root"
    root:triggers(ItemSelected)
    root:handleEvent(ItemSelected, function() end)
    local o = root:trigger(ItemSelected())
    assert.trace(o.trace, {
      "event ItemSelected{} from Root",
      "  Root         #1 triggers(ItemSelected)       declared",
      "  Root         #2 handleEvent(ItemSelected)    handled",
    })
  end)
end)

describe("trace steps", function()
  it("are a list of { node, index, responder, filter, value, decision, result }", function()
    local root = View "Root" { View "Item" }
    local item = root:find("Item")
    item:transformEvent(ItemSelected, function() return FirstEvent { x = 1 } end)
    root:receiveEvent(function() return false end)
    root:handleEvent(FirstEvent, function() end)
    local o = item:trigger(ItemSelected())
    local t = o.trace
    assert.equal(3, #t)
    local s1, s2, s3 = t[1], t[2], t[3]
    assert.equal(item, s1.node)
    assert.equal(1, s1.index)
    assert.matches("^transformEvent", s1.responder)
    assert.equal(ItemSelected, s1.filter)
    assert.equal(ItemSelected, s1.value.type)
    assert.equal("transformed", s1.decision)
    assert.equal(FirstEvent, s1.result.type)
    assert.equal(root, s2.node)
    assert.equal(1, s2.index)
    assert.is_nil(s2.filter)
    assert.equal(FirstEvent, s2.value.type)
    assert.equal("passed", s2.decision)
    assert.equal(2, s3.index)
    assert.equal("handled", s3.decision)
  end)

  it("a threw step's result is the error", function()
    local root = View "Root"
    root:handleEvent(function() error(Boom { k = 1 }) end)
    root:handleError(function() end)
    local o = root:trigger(ItemSelected())
    assert.equal("threw", o.trace[1].decision)
    assert.equal(Boom, o.trace[1].result.type)
    assert.equal("handled", o.trace[2].decision)
    assert.equal(Boom, o.trace[2].value.type)
  end)

  it("an unhandled dispatch ends with an unhandled step", function()
    local root = View "Root"
    root:safetyLevel("disabled")
    local o = root:trigger(ItemSelected())
    local last = o.trace[#o.trace]
    assert.equal("unhandled", last.decision)
    assert.equal(root, last.node)
  end)

  it("a caught step has the event as result", function()
    local root = View "Root"
    root:catchError(function() return Recovered() end)
    root:handleEvent(function() end)
    local o = root:report(Boom())
    assert.equal("caught", o.trace[1].decision)
    assert.equal(Recovered, o.trace[1].result.type)
  end)
end)

describe("traces of taps", function()
  it("a tap records a trace that starts from the tapped node", function()
    local button = EventButton "Go" { event = ItemSelected() }
    local root = View "Root" { button }
    root:handleEvent(function() end)
    tap(button)
    assert.matches("^event ItemSelected{} from EventButton", tostring(responder.lastTrace()))
  end)

  it("pairs iterates a trace's steps and an outcome's fields", function()
    local A = Event "PairsA"
    local root = View "Root"
    root:receiveEvent(function() return false end)
    root:handleEvent(A, function() end)
    local o = root:trigger(A())
    local decisions = {}
    for i, step in pairs(o.trace) do decisions[i] = step.decision end
    assert.same({ "passed", "handled" }, decisions)
    local keys = {}
    for k in pairs(o) do keys[#keys + 1] = k end
    assert.same({ "handled", "by", "responder", "value", "trace" }, keys)
  end)

  it("the final unhandled step has no index and no responder", function()
    local A = Event "Lost"
    local root = View "Root"
    root:safetyLevel("disabled")
    local o = root:trigger(A())
    local last = o.trace[#o.trace]
    assert.equal("unhandled", last.decision)
    assert.is_nil(last.index)
    assert.is_nil(last.responder)
    assert.equal(root, last.node)
  end)
end)

describe("the text form's index column", function()
  it("is as wide as the widest index, so that #9 and #10 line up", function()
    local A = Event "A"
    local root = View "Root"
    for _ = 1, 9 do root:receiveEvent(function() end) end
    root:handleEvent(A, function() end)
    local lines = {}
    for line in tostring(root:trigger(A {}).trace):gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert.equal("  Root         #9  receiveEvent                 passed", lines[10])
    assert.equal("  Root         #10 handleEvent(A)               handled", lines[11])
  end)

  it("keeps one step a line when names, ids or type names hold line breaks", function()
    local T = Event "Tapped\nTwice"
    local cell = View "Cell\nRow" { id = "a\rb" }
    local root = View "Root" { cell }
    root:handleEvent(T, function() end)
    cell:receiveEvent(function() end)
    assert.equal("event Tapped Twice{} from Cell Row#a b\n"
      .. "  Cell Row#a b #1 receiveEvent                 passed\n"
      .. "  Root         #1 handleEvent(Tapped Twice)    handled", tostring(cell:trigger(T()).trace))
    local line
    assert.warns("unhandledEvent", function()
      cell:trigger(Event "Lost\nOne" ())
      line = responder.warnings()[1].message
    end)
    assert.truthy(line:find("Cell\nRow", 1, true)) -- the record keeps the text; the printed line does not
  end)

  it("keeps the unhandled row's decision in the index column", function()
    local root = View "Root"
    for _ = 1, 10 do root:receiveEvent(function() end) end
    local text
    assert.warns("unhandledEvent", function() text = tostring(root:trigger(Event "B" {}).trace) end)
    assert.truthy(text:find("\n  Root         #10 receiveEvent                 passed\n", 1, true))
    assert.truthy(text:find("\n  Root             unhandled$"))
  end)
end)
