-- SPEC §2.8: target–action records the action and the nil-target walk.
describe("target–action traces", function()
  it("a Button tap records which dispatch-table entries ran", function()
    local b = Button "Save" { id = "save", action = function() end }
    b:addAction(function() end, { id = "log" })
    mount(View "Root" { b })
    tap(b)
    local trace = responder.lastTrace()
    assert.trace(trace, {
      "action touchUpInside from Button#save",
      "  Button#save  #1 action(action) * handled",
      "  Button#save  #2 action(log) * handled",
    })
  end)

  it("a nil-targeted action records each node asked and who performed", function()
    local b = Button "Undo" { id = "undo", action = function() end }
    local form = View "Form" { b }
    local screen = View "Screen" { form }
    screen:canPerform("undo:", function() end)
    mount(View "App" { screen })
    b:addTarget(nil, "undo:")
    assert.equal(2, sendActions(b, "touchUpInside"))
    local steps = responder.lastTrace()
    assert.equal("addTarget(nil, undo:)", steps[2].responder)
    assert.equal("passed", steps[2].decision)
    assert.same({ "Button#undo", "Form", "Screen" },
      { tostring(steps[3].node), tostring(steps[4].node), tostring(steps[5].node) })
    assert.same({ "skipped", "skipped", "handled" }, { steps[3].decision, steps[4].decision, steps[5].decision })
    assert.equal("canPerform(undo:)", steps[5].responder)
    assert.equal(5, #steps)
  end)

  it("an action nobody performs ends with an unhandled step and a violation", function()
    local b = Button "Share" { action = function() end }
    mount(View "Root" { b })
    b:addTarget(nil, "share:")
    assert.warns("unhandledAction", function() tap(b) end)
    local trace = responder.lastTrace()
    assert.equal("unhandled", trace[#trace].decision)
    assert.equal("Root", tostring(trace[#trace].node))
  end)

  it("actions sent inside a responder belong to that dispatch", function()
    local Go = Event "Go"
    local b = Button "B" { action = function() end }
    local root = View "Root" { b }
    root:handleEvent(Go, function() sendActions(b, "touchUpInside") end)
    local o = root:trigger(Go {})
    assert.equal(o.trace, responder.lastTrace())
  end)

  it("a handler whose target cannot perform the action is traced as threw", function()
    local b = Button "B" { action = function() end }
    local root = View "Root" { b }
    root:handleError(function() end)
    mount(root)
    b:addTarget(View "Target", "nosuch", "touchUpInside")
    tap(b)
    assert.trace(responder.lastTrace(), {
      "action touchUpInside from Button",
      "  Button       #1 action(action)               handled",
      "  Button       #2 addTarget(nosuch)            threw",
      "  Root         #1 handleError                  handled",
    })
  end)

  it("the error a Button's action raised goes on in the action's trace (found by an acceptance probe)", function()
    local Oops = Error "Oops"
    local b = Button "Save" { id = "save", action = function() error(Oops { why = "x" }) end }
    local root = View "Root" { b }
    local got
    root:handleError(Oops, function(e) got = e end)
    mount(root)
    assert.is_true(tap(b))
    assert.equal(Oops { why = "x" }, got)
    assert.trace(responder.lastTrace(), {
      "action touchUpInside from Button#save",
      "  Button#save  #1 action(action)               threw",
      "  Root         #1 handleError(Oops)            handled",
    })
    -- unhandled: the walk ends at the root, and sendActions records it the same way
    local c = Button "Go" { id = "go", action = function() error("boom") end }
    root:add(c)
    assert.warns("unhandledError", function() sendActions(c, "touchUpInside") end)
    local trace = responder.lastTrace()
    assert.equal("threw", trace[1].decision)
    assert.equal("unhandled", trace[#trace].decision)
    assert.equal(root, trace[#trace].node)
  end)

  it("an input that sends several actions records one trace of the input with all their steps", function()
    local sl = Slider { value = State(0):binding(), range = { 0, 10 }, step = 1,
      onEditingChanged = function() end, id = "sl" }
    sl:addAction(function() end, { event = "valueChanged", id = "vc" })
    mount(View "Root" { sl })
    slide(sl, 3)
    assert.trace(responder.lastTrace(), {
      "action slide from Slider#sl",
      "  Slider#sl    #1 action(onEditingChanged)     handled",
      "  Slider#sl    #3 action(vc)                   handled",
      "  Slider#sl    #2 action(onEditingChanged)     handled",
    })
    -- one action keeps its own header
    local b = Button "B" { action = function() end }
    mount(View "Root" { b })
    tap(b)
    assert.equal("action touchUpInside from Button", tostring(responder.lastTrace()):match("^[^\n]*"))
  end)

  it("an input that ran no action still records its trace; a segment's action is a step (found by an acceptance probe)", function()
    local b = Button "B" { action = function() end }
    local tg = Toggle "T" { isOn = State(false):binding() }
    local seg = SegmentedControl { id = "s", segments = { { title = "One", action = function() end }, { title = "Two" } } }
    mount(View "Root" { b, tg, seg })
    tap(b)
    toggle(tg)
    assert.trace(responder.lastTrace(), { "action toggle from Toggle" })
    selectSegment(seg, 1)
    assert.trace(responder.lastTrace(), {
      "action valueChanged from SegmentedControl#s",
      "  SegmentedControl#s #1 segment(One)                 handled",
    })
    seg:addAction(function() end, { event = "valueChanged", id = "vc" })
    selectSegment(seg, 2)
    assert.trace(responder.lastTrace(), {
      "action valueChanged from SegmentedControl#s",
      "  SegmentedControl#s #1 action(vc)                   handled",
    })
    selectSegment(seg, 1)
    assert.trace(responder.lastTrace(), {
      "action selectSegment from SegmentedControl#s",
      "  SegmentedControl#s #1 segment(One)                 handled",
      "  SegmentedControl#s #1 action(vc)                   handled",
    })
  end)

  it("a segment action that raised is a threw step (found by the review)", function()
    local seg = SegmentedControl { id = "s", segments = { { title = "One" },
      { title = "Two", action = function() error("segboom") end } } }
    mount(View "Root" { seg })
    assert.warns("unhandledError", function() selectSegment(seg, 2) end)
    assert.trace(responder.lastTrace(), {
      "action valueChanged from SegmentedControl#s",
      "  SegmentedControl#s #2 segment(Two)                 threw",
      "  Root               unhandled",
    })
  end)

  it("the error an onTapGesture function raised goes on in the tap's trace, as a Button's does (found by an acceptance probe)", function()
    local E = Error "E"
    local root = View "Root"
    root:handleError(function() end)
    local w = View "W"
    w:onTapGesture(function() error(E {}) end)
    root:add(w)
    mount(root)
    assert.is_true(tap(w))
    assert.trace(responder.lastTrace(), {
      "action tap from W",
      "  W               onTapGesture                 threw",
      "  Root         #1 handleError                  handled",
    })
    -- a function that reports an error itself leaves that dispatch as the last trace
    local v = View "V"
    v:onTapGesture(function() root:report(E { x = 1 }) end)
    root:add(v)
    tap(v)
    assert.trace(responder.lastTrace(), {
      "error E{x=1} from Root",
      "  Root         #1 handleError                  handled",
    })
  end)
end)
