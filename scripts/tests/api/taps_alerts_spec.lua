-- EventButton, onTapGesture, tap, alerts (SPEC §2.7).

local Tapped = Event "Tapped"
local Failure = AlertableError "Failure"
local Plain = Error "Plain"

describe("EventButton", function()
  it("triggers its fixed event from the button on each tap", function()
    local button = EventButton "Save" { event = Tapped { what = "save" } }
    local root = View "Root" { View "Toolbar" { button } }
    local got = {}
    root:handleEvent(Tapped, function(e, ctx) got[#got + 1] = e; assert.equal(button, ctx.origin) end)
    local o = tap(button)
    tap(button)
    assert.handled(o, root)
    assert.equal(2, #got)
    assert.equal("save", got[1].what)
    assert.equal(got[1], got[2])
  end)

  it("evaluates an event function at each tap", function()
    local n = 0
    local button = EventButton "Count" { event = function() n = n + 1; return Tapped { n = n } end }
    local root = View "Root" { button }
    local got = {}
    root:handleEvent(Tapped, function(e) got[#got + 1] = e.n end)
    assert.equal(0, n)
    tap(button)
    tap(button)
    tap(button)
    assert.same({ 1, 2, 3 }, got)
  end)

  it("the outcome of tap reports the dispatch", function()
    local button = EventButton "X" { event = Tapped() }
    local root = View "Root" { button }
    root:safetyLevel("disabled")
    local o = tap(button)
    assert.unhandled(o)
    assert.equal(Tapped, o.value.type)
  end)

  -- found by an acceptance probe: these raised out of tap, or waited for the first tap
  it("needs an event when made with a table", function()
    assert.error_matches(function() return EventButton "Save" {} end,
      "EventButton { … } needs an event: EventButton \"Title\" { event = E{…} }", 1, true)
  end)

  it("an error in its event function is reported from the button as a LuaError, as a tap function's", function()
    local got = {}
    local button = EventButton "B" { event = function() error("no event today") end }
    local root = View "Root" { button }
    root:handleError(LuaError, function(e) got[#got + 1] = e end)
    assert.is_true(tap(button))
    assert.equal(1, #got)
    assert.matches("no event today", got[1].message, 1, true)
    assert.equal(button, got[1].node)
  end)

  it("an event function returning something else is a LuaError reported from the button", function()
    local got
    local button = EventButton "B" { event = function() return "Tapped" end }
    local root = View "Root" { button }
    root:handleError(LuaError, function(e) got = e end)
    tap(button)
    -- placed at the function's definition, as a responder's wrong return is at its registration
    -- (found by an acceptance probe)
    assert.matches("^[^:]*taps_alerts_spec%.lua:62: EventButton event function returned string %(an event expected%)$",
      got.message)
    assert.equal(button, got.node)
  end)
end)

describe("onTapGesture", function()
  it("with a function runs it on tap", function()
    local root = View "Root" { View "Card" }
    local card = root:find("Card")
    local calls = 0
    card:onTapGesture(function() calls = calls + 1 end)
    tap(card)
    tap(card)
    assert.equal(2, calls)
  end)

  it("with trigger = event triggers it from the node", function()
    local root = View "Root" { View "Card" }
    local card = root:find("Card")
    card:onTapGesture { trigger = Tapped { k = 1 } }
    local got
    root:handleEvent(Tapped, function(e) got = e end)
    local o = tap(card)
    assert.handled(o, root)
    assert.equal(1, got.k)
  end)

  it("with trigger = function builds the event at tap time", function()
    local root = View "Root" { View "Card" }
    local card = root:find("Card")
    local n = 0
    card:onTapGesture { trigger = function() n = n + 1; return Tapped { n = n } end }
    local got = {}
    root:handleEvent(Tapped, function(e) got[#got + 1] = e.n end)
    tap(card)
    tap(card)
    assert.same({ 1, 2 }, got)
  end)

  it("with trigger = function that returns nothing runs it as a tap function (found by an acceptance probe)", function()
    local hits = 0
    local card = View "Card"
    mount(View "Root" { card })
    card:onTapGesture { count = 2, trigger = function() hits = hits + 1 end }
    assert.is_true(tap(card, 2))
    assert.equal(1, hits)
    assert.equal("action tap from Card\n  Card            onTapGesture                 handled", tostring(responder.lastTrace()))
  end)

  it("with count fires only for that tap count", function()
    local root = View "Root" { View "Card" }
    local card = root:find("Card")
    card:onTapGesture { trigger = Tapped { double = true }, count = 2 }
    local got = 0
    root:handleEvent(Tapped, function(e) got = got + 1 end)
    assert.error_matches(function() tap(card) end, "Card has no tap action for 1 tap %(it has: 2 taps%)")
    assert.equal(0, got)
    local o = tap(card, 2)
    assert.equal(1, got)
    assert.handled(o, root)
  end)

  it("returns the node for chaining", function()
    local card = View "Card"
    assert.equal(card, card:onTapGesture(function() end))
  end)
end)

describe("tap", function()
  it("is an error on a node with no tap action", function()
    local plain = View "Plain"
    assert.error_matches(function() tap(plain) end, "no tap action")
  end)

  it("needs a node", function()
    assert.error_matches(function() tap("x") end, "bad argument #1 to 'tap' %(node expected, got string%)")
  end)
end)

describe("alerts", function()
  it("handleAlertErrors consumes an alertable error and presents an alert", function()
    local root = View "Root" { View "Form" }
    local form = root:find("Form")
    root:handleAlertErrors()
    assert.is_nil(responder.alert())
    local o = form:report(Failure { message = "Could not save" })
    assert.handled(o, root)
    assert.equal("handleAlertErrors", o.responder)
    local a = responder.alert()
    assert.equal("Error", a.title)
    assert.equal("Could not save", a.message)
    assert.equal("Okay", a.button)
    assert.equal(root, a.node)
  end)

  it("uses the error's title when it has one", function()
    local root = View "Root"
    root:handleAlertErrors()
    root:report(Failure { message = "m", title = "Network" })
    assert.equal("Network", responder.alert().title)
  end)

  it("a second alert replaces the first", function()
    local root = View "Root"
    root:handleAlertErrors()
    root:report(Failure { message = "first" })
    root:report(Failure { message = "second", title = "Two" })
    local a = responder.alert()
    assert.equal("second", a.message)
    assert.equal("Two", a.title)
  end)

  it("dismissAlert clears it", function()
    local root = View "Root"
    root:handleAlertErrors()
    root:report(Failure { message = "m" })
    responder.dismissAlert()
    assert.is_nil(responder.alert())
  end)

  it("other errors pass on untouched", function()
    local root = View "Root" { View "Form" }
    root:find("Form"):handleAlertErrors()
    local passed
    root:handleError(function(e) passed = e end)
    local o = root:find("Form"):report(Plain { x = 1 })
    assert.handled(o, root)
    assert.equal(Plain, passed.type)
    assert.is_nil(responder.alert())
  end)

  it("an event handler that throws an alertable error shows an alert", function()
    local button = EventButton "Save" { event = Tapped() }
    local root = View "Root" { button }
    root:handleEvent(Tapped, function() error(Failure { message = "disk full" }) end)
    root:handleAlertErrors()
    local o = tap(button)
    assert.handled(o, root)
    assert.equal(Failure, o.value.type)
    assert.equal("disk full", responder.alert().message)
  end)

  it("a tap performed by a function returns true and records its trace", function()
    local t = View "T"
    local taps = 0
    t:onTapGesture(function() taps = taps + 1 end)
    mount(View "Root" { t })
    assert.is_true(tap(t))
    assert.equal(1, taps)
    assert.equal("action tap from T\n  T               onTapGesture                 handled",
      tostring(responder.lastTrace()))
  end)

  it("an EventButton is disabled by disabled = true in its table", function()
    local Go = Event "Go"
    local eb = EventButton "E" { event = Go {}, disabled = true }
    local root = View "Root" { eb }
    local handled = false
    root:handleEvent(Go, function() handled = true end)
    mount(root)
    assert.is_false(eb.isEnabled)
    assert.is_false(tap(eb))
    assert.is_false(handled)
    assert.is_nil(eb.props.disabled)
  end)
end)

describe("tap actions given a type", function()
  it("refuses a type where an event or a function belongs, at the line that gave it (found by an acceptance probe)", function()
    local ok, err = pcall(function() return EventButton "Save" { event = Plain } end)
    assert.is_false(ok)
    assert.matches("taps_alerts_spec%.lua:%d+: bad field 'event' in EventButton %(event or function expected, "
      .. "got error type Plain%)$", err)
    ok, err = pcall(function() return EventButton "Save" { event = Tapped } end)
    assert.is_false(ok)
    assert.matches("got event type Tapped; make a value with Tapped {}%)$", err)
    local v = View "V"
    ok, err = pcall(function() v:onTapGesture { trigger = Plain } end)
    assert.is_false(ok)
    assert.matches("bad field 'trigger' in onTapGesture %(event or function expected, got error type Plain%)$", err)
    ok, err = pcall(function() v:onTapGesture(Tapped) end)
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'onTapGesture' %(function or table expected, got event type%)$", err)
    assert.has_error(function() tap(v) end)  -- none of them was added
  end)
end)
