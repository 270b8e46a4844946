-- SPEC §2.10: lifetimes and handles, generated ids, weak targets, segmented-control methods.
describe("lifetimes", function()
  it("onChange fires only while its node is mounted", function()
    local s = State(0)
    local seen = {}
    local root = View "Root" { View "Label" }
    local label = root:find("Label")
    label:onChange(s, function(new) seen[#seen + 1] = new end)
    s.value = 1 -- never mounted
    mount(root)
    s.value = 2
    label:remove()
    s.value = 3 -- removed
    assert.same({ 2 }, seen)
  end)

  it("onChange returns a handle whose cancel stops it", function()
    local s = State(0)
    local seen = {}
    local node = View "N"
    mount(node)
    local h = node:onChange(s:binding(), function(new) seen[#seen + 1] = new end)
    s.value = 1
    assert.is_false(h.isCancelled)
    h:cancel()
    assert.is_true(h.isCancelled)
    s.value = 2
    assert.same({ 1 }, seen)
  end)

  it("onReceive stops after remove", function()
    local s = spy.new(function() end)
    local root = View "Root" { View "Inbox" }
    root:find("Inbox"):onReceive("mail", function() s() end)
    mount(root)
    post("mail")
    root:find("Inbox"):remove()
    post("mail")
    assert.spy(s).was.called(1)
  end)
end)

describe("generated ids and handles", function()
  it("addAction without an id returns a generated one, shown by eventHandlers and removable", function()
    local log = {}
    local b = Button "B" { action = function() end }
    local a1 = b:addAction(function() log[#log + 1] = "one" end)
    local a2 = b:addAction(function() log[#log + 1] = "two" end)
    assert.is_string(a1)
    assert.are_not.equal(a1, a2)
    local ids = {}
    for _, h in ipairs(b:eventHandlers()) do ids[#ids + 1] = h.id end
    assert.same({ "action", a1, a2 }, ids)
    b:removeAction(a1)
    tap(b)
    assert.same({ "two" }, log)
  end)

  it("on.* entries get generated ids and handles that remove them one by one", function()
    local log = {}
    local b = Button "B" { action = function() end }
    local h1 = b.on.tap(function() log[#log + 1] = "first" end)
    b.on.tap(function() log[#log + 1] = "second" end)
    h1:cancel()
    tap(b)
    assert.same({ "second" }, log)
    local card = View "Card"
    local h = card.on.tap(function() log[#log + 1] = "card" end)
    tap(card)
    h:cancel()
    assert.error_matches(function() tap(card) end, "Card has no tap action")
    assert.same({ "second", "card" }, log)
  end)
end)

describe("weak targets", function()
  it("addTarget holds a table target weakly, as UIKit does", function()
    local b = Button "B" { action = function() end }
    local hits = 0
    local target = { save = function() hits = hits + 1 end }
    b:addTarget(target, "save")
    tap(b)
    assert.equal(1, hits)
    assert.equal(2, #b:eventHandlers())
    target = nil
    collectgarbage()
    collectgarbage()
    assert.equal(1, #b:eventHandlers())
    tap(b)
    assert.equal(1, hits)
  end)

  it("a collected target is gone from sends and their traces too (found by an acceptance probe)", function()
    local b = Button "B" { action = function() end }
    mount(View "Root" { b })
    local hits = 0
    do b:addTarget({ go = function() hits = hits + 1 end }, "go") end
    collectgarbage()
    collectgarbage()
    -- the send runs (and counts) only the button's own action; the trace has no step for the target
    assert.equal(1, sendActions(b, "touchUpInside"))
    assert.equal(0, hits)
    assert.trace(responder.lastTrace(), {
      "action touchUpInside from Button",
      "  Button       #1 action(action)               handled",
    })
  end)

  it("a node target stays with the control", function()
    local b = Button "B" { action = function() end }
    local hits = 0
    local screen = View "Screen" { b }
    screen:canPerform("save", function() hits = hits + 1 end)
    b:addTarget(screen, "save")
    collectgarbage()
    tap(b)
    assert.equal(1, hits)
  end)
end)

describe("segmented controls", function()
  local function make(log)
    return SegmentedControl { segments = {
      { title = "One", id = "one", action = function() log[#log + 1] = "one" end },
      { title = "Two", id = "two" },
    } }
  end

  it("insertSegment inserts at a position (default: the end) and keeps the selection", function()
    local log = {}
    local seg = make(log)
    selectSegment(seg, 2)
    assert.equal(seg, seg:insertSegment({ title = "Zero", id = "zero" }, 1))
    assert.same({ "Zero", "One", "Two" }, seg.segments)
    assert.equal(3, seg.selectedSegment)
    seg:insertSegment({ title = "Three", action = function() log[#log + 1] = "three" end })
    assert.same({ "Zero", "One", "Two", "Three" }, seg.segments)
    selectSegment(seg, 4)
    assert.same({ "three" }, log)
  end)

  it("segmentIndex finds a segment by id; actionForSegment and setAction read and replace actions", function()
    local log = {}
    local seg = make(log)
    assert.equal(2, seg:segmentIndex("two"))
    assert.is_nil(seg:segmentIndex("nope"))
    assert.is_function(seg:actionForSegment(1))
    assert.is_nil(seg:actionForSegment(2))
    seg:setAction(2, function() log[#log + 1] = "new two" end)
    selectSegment(seg, 2)
    assert.same({ "new two" }, log)
    seg:setAction(1, nil)
    assert.is_nil(seg:actionForSegment(1))
  end)

  it("insertSegment pins an index past either end to it, as UIKit clamps it (found by an acceptance probe)", function()
    local seg = make({})
    seg:insertSegment({ title = "Last" }, 9)
    seg:insertSegment({ title = "First" }, 0)
    assert.same({ "First", "One", "Two", "Last" }, seg.segments)
  end)

  it("checks its arguments", function()
    local seg = make({})
    assert.error_matches(function() seg:insertSegment({ title = 3 }) end, "field 'title' must be a string")
    assert.error_matches(function() seg:insertSegment({ title = "x" }, "two") end,
      "bad argument #2 to 'insertSegment' %(segment index %(integer%) expected, got string%)")
    assert.error_matches(function() seg:setAction(5, function() end) end, "segment index %(1..2%) expected")
    assert.error_matches(function() seg:segmentIndex(1) end, "segment id %(string%) expected")
  end)
end)

-- SPEC §2.10: every registration returns a handle with :cancel(); §2.4: registrations chain.
local function tablex_find(t, v)
  for i, x in ipairs(t) do if x == v then return i end end
end

describe("registration handles that stand for their node (found by an acceptance probe)", function()
  it("onAppear, onDisappear, onPreferenceChange and onAsyncTask* return a handle whose cancel removes them", function()
    local log = {}
    local P = Preference("p", { default = 0 })
    local root = View "Root"
    local child = View "Child"
    root:add(child)
    local appear = root:onAppear(function() log[#log + 1] = "appear" end)
    local disappear = root:onDisappear(function() log[#log + 1] = "disappear" end)
    local pref = root:onPreferenceChange(P, function(v) log[#log + 1] = "pref " .. v end)
    local started = root:onAsyncTaskStarted(function() log[#log + 1] = "started" end)
    local ended = root:onAsyncTaskEnded(function() log[#log + 1] = "ended" end)
    local changed = root:onAsyncTaskChanged(function() log[#log + 1] = "changed" end)
    for _, h in ipairs({ appear, disappear, pref, started, ended, changed }) do
      assert.is_false(h.isCancelled)
      assert.equal(h, h:cancel())
      assert.is_true(h.isCancelled)
      h:cancel()  -- a second cancel does nothing
    end
    mount(root)
    child:preference(P, 3)
    task(function() sleep(1) end, { node = child })
    advance(1)
    mount(View "Other")
    assert.same({}, log)
  end)

  it("a handle chains, passes as its node, equals it and prints as it", function()
    local log = {}
    local a = View "A":onAppear(function() log[#log + 1] = "a" end):onDisappear(function() log[#log + 1] = "a gone" end)
    local root = View "Root" { a }
    assert.equal("A", tostring(a))
    assert.equal(root.children[1], a)
    assert.is_true(a == root.children[1])
    assert.equal("A", a.name)
    assert.equal(root, a.parent)
    local b = View "B":onAppear(function() log[#log + 1] = "b" end)
    root:add(b)
    mount(root)
    assert.same({ "a", "b" }, log)
    b:remove()
    assert.same({ "a", "b" }, log)
    assert.is_nil(b.parent)
    a.props.n = 1
    assert.equal(1, root.children[1].props.n)
    local ok, err = pcall(function() a.x = 1 end)
    assert.is_false(ok)
    assert.matches("lifetimes_spec.lua:%d+: cannot assign field 'x' of a node", err)
  end)

  it("a handler cancelled by an earlier one in the same list does not run", function()
    local log = {}
    local root = View "Root"
    local second
    root:onAppear(function() log[#log + 1] = "first"; second:cancel() end)
    second = root:onAppear(function() log[#log + 1] = "second" end)
    mount(root)
    assert.same({ "first" }, log)
  end)

  it("onTapGesture, canPerform and addTarget return such a handle too (found by an acceptance probe)", function()
    local E = Event "E"
    local log = {}
    local root = View "Root"
    root:handleEvent(E, function(e) log[#log + 1] = e.k end)
    local n = View "N"
    root:add(n)
    -- onTapGesture: the handle chains as the node; cancel removes that tap action only
    local one = n:onTapGesture { trigger = E { k = "one" } }
    local two = one:onTapGesture { count = 2, perform = function() log[#log + 1] = "two" end }
    assert.is_true(one == n and two == n)
    assert.equal("N", tostring(one))
    assert.is_false(one.isCancelled)
    assert.equal(one, one:cancel())
    assert.is_true(one.isCancelled)
    local ok, err = pcall(tap, n)
    assert.is_false(ok)
    assert.matches("no tap action", err)
    assert.is_true(tap(n, 2))
    assert.same({ "two" }, log)
    -- canPerform: cancel removes the declaration, not one that replaced it since
    local button = Button "B" { action = function() end }
    root:add(button)
    button:addTarget(nil, "save")
    local first = root:canPerform("save", function() log[#log + 1] = "save 1" end)
    assert.equal(root, first)
    first:cancel()
    assert.is_false(root:canPerform("save"))
    local replaced = root:canPerform("save", function() log[#log + 1] = "save 2" end)
    root:canPerform("save", function() log[#log + 1] = "save 3" end)
    replaced:cancel()
    assert.is_true(root:canPerform("save"))
    sendActions(button, "touchUpInside")
    assert.equal("save 3", log[#log])
    -- addTarget: cancel removes that entry of the dispatch table
    local target = { go = function() log[#log + 1] = "go" end }
    local count = #button:eventHandlers()
    local h = button:addTarget(target, "go")
    assert.equal(button, h)
    assert.equal(count + 1, #button:eventHandlers())
    h:cancel()
    assert.equal(count, #button:eventHandlers())
    sendActions(button, "touchUpInside")
    assert.is_nil(tablex_find(log, "go"))
  end)

  it("cancelling one of two registrations of the same function keeps the other", function()
    local n = 0
    local f = function() n = n + 1 end
    local root = View "Root"
    root:onAppear(f)
    root:onAppear(f):cancel()
    mount(root)
    assert.equal(1, n)
  end)
end)
