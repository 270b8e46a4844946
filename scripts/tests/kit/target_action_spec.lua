-- Target–action: dispatch tables, addAction/addTarget, nil targets, sendActions (SPEC §2.9).

local function noop() end

describe("addAction", function()
  it("appends handlers that tap fires in order, after the button's action", function()
    local log = {}
    local b = Button "Save" { action = function() log[#log + 1] = "action" end }
    assert.equal("first", b:addAction(function(sender, action)
      log[#log + 1] = action.id .. ":" .. action.event
      assert.equal(b, sender)
      assert.equal(b, action.sender)
    end, { id = "first", title = "First" }))
    b:addAction(function() log[#log + 1] = "second" end, { id = "second" })
    tap(b)
    assert.same({ "action", "first:touchUpInside", "second" }, log)
  end)

  it("an action with an id already present replaces it in place", function()
    local log = {}
    local b = Button "B" { action = noop }
    b:addAction(function() log[#log + 1] = "a1" end, { id = "a" })
    b:addAction(function() log[#log + 1] = "b" end, { id = "b" })
    b:addAction(function() log[#log + 1] = "a2" end, { id = "a" })
    tap(b)
    assert.same({ "a2", "b" }, log)
    local ids = {}
    for _, h in ipairs(b:eventHandlers()) do ids[#ids + 1] = h.id end
    assert.same({ "action", "a", "b" }, ids)
  end)

  it("an id already present under another event is replaced in place too, with the new event", function()
    local log = {}
    local b = Button "B" { action = noop }
    b:addAction(function() log[#log + 1] = "changed" end, { id = "a1", event = "valueChanged" })
    b:addAction(function() log[#log + 1] = "b" end, { id = "b" })
    b:addAction(function() log[#log + 1] = "tapped" end, { id = "a1" })
    local rows = {}
    for _, h in ipairs(b:eventHandlers()) do rows[#rows + 1] = h.id .. " " .. h.event end
    assert.same({ "action touchUpInside", "a1 touchUpInside", "b touchUpInside" }, rows)
    tap(b)
    assert.same({ "tapped", "b" }, log)
  end)

  it("an action replaced in place during a send, before its turn, runs its new function (found by an acceptance probe)", function()
    -- (the replacement counted as an entry added during the send: an action that re-registered
    -- itself by id never ran)
    local log = {}
    local b
    b = Button "B" { action = function()
      log[#log + 1] = "action"
      b:addAction(function() log[#log + 1] = "again" end, { id = "again" })
    end }
    tap(b)
    assert.same({ "action" }, log)  -- added during the send: waits for the next one
    tap(b)
    tap(b)
    assert.same({ "action", "action", "again", "action", "again" }, log)
  end)

  it("registers for other events; simulated input fires them", function()
    local log = {}
    local tf = TextField "Name" { text = State("") }
    tf:addAction(function() log[#log + 1] = "begin" end, { event = "editingDidBegin" })
    tf:addAction(function() log[#log + 1] = "changed" end, { event = "editingChanged" })
    tf:addAction(function() log[#log + 1] = "commit" end, { event = "primaryActionTriggered" })
    tf:addAction(function() log[#log + 1] = "end" end, { event = "editingDidEnd" })
    typeText(tf, "ab")
    commit(tf)
    assert.same({ "begin", "changed", "changed", "commit", "end" }, log)
  end)

  it("a slider's value change is a valueChanged entry", function()
    local got = {}
    local v = State(0)
    local s = Slider { value = v, range = { 0, 10 } }
    s:addAction(function(sender) got[#got + 1] = sender.value end, { event = "valueChanged" })
    slide(s, 7)
    assert.same({ 7 }, got)
  end)

  it("checks its arguments", function()
    local b = Button "B" { action = noop }
    assert.error_matches(function() b:addAction("f") end, "bad argument #1 to 'addAction' %(function expected, got string%)")
    assert.error_matches(function() b:addAction(noop, { event = "tapped" }) end, "control event expected")
    assert.error_matches(function() View "V":addAction(noop) end, "a control expected")
  end)
end)

describe("removeAction", function()
  it("removes by id (and event)", function()
    local log = {}
    local b = Button "B" { action = function() log[#log + 1] = "action" end }
    b:addAction(function() log[#log + 1] = "x" end, { id = "x" })
    b:removeAction("x")
    b:removeAction("action", "touchUpInside")
    tap(b)
    assert.same({}, log)
    assert.same({}, b:eventHandlers())
  end)
end)

describe("addTarget", function()
  it("calls target:selector(sender, action) on a table target", function()
    local controller = { saved = 0 }
    function controller:save(sender, action)
      self.saved = self.saved + 1
      self.sender, self.selector = sender, action.selector
    end
    local b = Button "Save" { action = noop }
    b:addTarget(controller, "save", "touchUpInside")
    tap(b)
    assert.equal(1, controller.saved)
    assert.equal(b, controller.sender)
    assert.equal("save", controller.selector)
  end)

  it("works with targets whose methods come from a metatable", function()
    local Controller = {}
    Controller.__index = Controller
    function Controller:save() self.done = true end
    local c = setmetatable({}, Controller)
    local b = Button "Save" { action = noop }
    b:addTarget(c, "save")
    tap(b)
    assert.is_true(c.done)
  end)

  it("a node target performs what it declared with canPerform", function()
    local got
    local screen = View "Screen"
    screen:canPerform("save", function(sender, action) got = { sender, action.target } end)
    local b = Button "Save" { action = noop }
    b:addTarget(screen, "save")
    tap(b)
    assert.equal(b, got[1])
    assert.equal(screen, got[2])
  end)

  it("a nil target searches the responder chain upward from the control", function()
    local log = {}
    local b = Button "Save" { action = noop }
    local root = View "Root" { View "Form" { b } }
    local form = root:find("Form")
    root:canPerform("save", function() log[#log + 1] = "root" end)
    form:canPerform("save", function(sender, action) log[#log + 1] = "form"; assert.equal(form, action.target) end)
    b:addTarget(nil, "save")
    tap(b)
    assert.same({ "form" }, log)
    assert.is_true(form:canPerform("save"))
    assert.is_false(b:canPerform("save"))
  end)

  it("the same target, selector and event is added once", function()
    local c = { n = 0 }
    function c:go() self.n = self.n + 1 end
    local b = Button "B" { action = noop }
    b:addTarget(c, "go")
    b:addTarget(c, "go")
    tap(b)
    assert.equal(1, c.n)
  end)

  it("rejects a table target without the method", function()
    local b = Button "B" { action = noop }
    assert.error_matches(function() b:addTarget({}, "save") end, "target has no method 'save'")
    assert.error_matches(function() b:addTarget(5, "save") end, "bad argument #1 to 'addTarget' %(node, table or nil expected, got number%)")
  end)
end)

describe("nil-target actions nobody performs", function()
  it("are an unhandledAction warning in relaxed mode", function()
    local b = Button "Save" { action = noop, id = "save" }
    View "Root" { b }
    b:addTarget(nil, "save")
    assert.warns("unhandledAction", function() tap(b) end)
    local w = responder.warnings()[#responder.warnings()]
    assert.equal("unhandledAction", w.kind)
    assert.equal(b, w.node)
    assert.truthy(w.message:find("unhandled action save", 1, true))
    assert.truthy(w.message:find("Button#save > Root", 1, true))
  end)

  it("abort in strict mode, uncatchable inside handlers", function()
    local b = Button "Save" { action = noop }
    local root = View "Root" { b }
    root:safetyLevel("strict")
    b:addTarget(nil, "save")
    local after = false
    b:addAction(function() after = true end)
    assert.error_matches(function() sendActions(b, "touchUpInside") end, "unhandled action save")
    assert.is_false(after)
  end)

  it("a pcall inside a responder cannot swallow the strict violation", function()
    local Go = Event "Go"
    local b = Button "Save" { action = noop }
    local root = View "Root" { b }
    root:safetyLevel("strict")
    b:addTarget(nil, "save")
    local host = View "Host"
    local after = false
    host:handleEvent(Go, function()
      pcall(tap, b)
      after = true
    end)
    assert.error_matches(function() host:trigger(Go()) end, "unhandled action save")
    assert.is_false(after)
  end)

  it("are silent when disabled", function()
    local b = Button "Save" { action = noop }
    local root = View "Root" { b }
    root:safetyLevel("disabled")
    b:addTarget(nil, "save")
    assert.no_warnings(function() tap(b) end)
  end)
end)

describe("removeTarget", function()
  it("nil matches any target, selector or event", function()
    local c = {}
    function c:a() end
    function c:b() end
    local b = Button "B" { action = noop }
    b:addTarget(c, "a")
    b:addTarget(c, "b")
    b:addTarget(nil, "a", "primaryActionTriggered")
    b:removeTarget(c, "a")
    assert.equal(3, #b:eventHandlers())
    b:removeTarget(nil, nil, "primaryActionTriggered")
    assert.equal(2, #b:eventHandlers())
    b:removeTarget()
    local hs = b:eventHandlers()
    assert.equal(1, #hs)
    assert.equal("action", hs[1].kind)
  end)
end)

describe("eventHandlers", function()
  it("lists the dispatch table in order", function()
    local c = {}
    function c:save() end
    local b = Button "Save" { action = noop }
    b:addAction(noop, { id = "log", title = "Log", event = "primaryActionTriggered" })
    b:addTarget(c, "save")
    local hs = b:eventHandlers()
    assert.equal(3, #hs)
    assert.same({ 1, "touchUpInside", "action", "action", "Save" }, { hs[1].index, hs[1].event, hs[1].kind, hs[1].id, hs[1].title })
    assert.same({ "primaryActionTriggered", "log", "Log" }, { hs[2].event, hs[2].id, hs[2].title })
    assert.same({ "target", "save", "touchUpInside" }, { hs[3].kind, hs[3].selector, hs[3].event })
    assert.equal(c, hs[3].target)
  end)
end)

describe("sendActions", function()
  it("fires every handler of the event and returns how many ran", function()
    local n = 0
    local t = Toggle "T" { isOn = State(false) }
    t:addAction(function() n = n + 1 end, { event = "valueChanged" })
    t:addAction(function() n = n + 10 end, { event = "valueChanged" })
    assert.equal(2, sendActions(t, "valueChanged"))
    assert.equal(11, n)
    assert.equal(0, sendActions(t, "editingDidEnd"))
  end)

  it("a handler's error is reported from the control, the next handlers still run", function()
    local b = Button "B" { action = function() error("broken") end }
    local root = View "Root" { b }
    local caught, ran
    root:handleError(LuaError, function(e) caught = e.message end)
    b:addAction(function() ran = true end)
    sendActions(b, "touchUpInside")
    assert.truthy(caught:find("broken"))
    assert.is_true(ran)
  end)

  it("checks its arguments", function()
    local b = Button "B" { action = noop }
    assert.error_matches(function() sendActions(b, "nope") end, "bad argument #2 to 'sendActions'")
    assert.error_matches(function() sendActions(View "V", "touchUpInside") end, "a control expected")
  end)
end)
