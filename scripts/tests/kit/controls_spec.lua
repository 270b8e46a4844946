-- Controls and simulated input (SPEC §2.9).

describe("Button", function()
  it("runs its action on tap, with (sender, action)", function()
    local got = {}
    local b = Button "Save" { action = function(sender, action) got[#got + 1] = { sender, action.title, action.event } end }
    assert.equal("Button", b.name)
    assert.equal("Save", b.title)
    assert.equal("Save", b.props.title)
    tap(b)
    tap(b)
    assert.equal(2, #got)
    assert.equal(b, got[1][1])
    assert.equal("Save", got[1][2])
    assert.equal("touchUpInside", got[1][3])
  end)

  it("requires an action", function()
    local ok, message = pcall(function() local _ = Button "Save" {} end)
    assert.is_false(ok)
    assert.truthy(message:find("controls_spec%.lua:%d+: Button \"Save\".*needs an action"))
    assert.error_matches(function() return Button "Save" { action = 1 } end,
      "bad field 'action' in Button \"Save\" { … } %(function expected, got number%)")
  end)

  it("keeps children, id and props like View", function()
    local b = Button "Go" { View "Icon", id = "go", color = "blue", action = function() end }
    assert.equal("go", b.id)
    assert.equal("blue", b.props.color)
    assert.is_nil(b.props.action)
    assert.equal("Icon", b.children[1].name)
    assert.equal("Button#go", tostring(b))
  end)

  it("its action can trigger events that bubble from the button", function()
    local Saved = Event "Saved"
    local b = Button "Save" { action = function(sender) sender:trigger(Saved()) end }
    local root = View "Root" { b }
    local n = 0
    root:handleEvent(Saved, function() n = n + 1 end)
    tap(b)
    assert.equal(1, n)
  end)

  it("an error in the action is reported from the button", function()
    local Failed = Error "Failed"
    local b = Button "Save" { action = function() error(Failed { why = "disk" }) end }
    local root = View "Root" { b }
    local got
    root:handleError(Failed, function(e, ctx) got = e; assert.equal(b, ctx.origin) end)
    tap(b)
    assert.equal("disk", got.why)
  end)
end)

describe("TextField", function()
  it("typeText begins editing and updates the binding per character", function()
    local name = State("")
    local events, seen = {}, {}
    local tf = TextField "Name" {
      text = name:binding(),
      onEditingChanged = function(editing) events[#events + 1] = editing end,
      onCommit = function() events[#events + 1] = "commit" end,
    }
    tf:onChange(name, function(new) seen[#seen + 1] = new end)
    mount(tf)
    typeText(tf, "abc")
    assert.same({ true }, events)
    assert.same({ "a", "ab", "abc" }, seen)
    assert.equal("abc", name.value)
    assert.equal("abc", tf.text)
    assert.is_true(tf.isEditing)
    typeText(tf, "d")
    assert.same({ true }, events)
    assert.equal("abcd", name.value)
    commit(tf)
    assert.same({ true, "commit", false }, events)
    assert.is_false(tf.isEditing)
  end)

  it("accepts a State directly and a custom Binding", function()
    local s = State("x")
    local tf = TextField "A" { text = s }
    typeText(tf, "y")
    assert.equal("xy", s.value)
    local log = {}
    local upper = Binding { get = function() return s.value end, set = function(v) log[#log + 1] = v; s.value = v:upper() end }
    local tf2 = TextField "B" { text = upper }
    typeText(tf2, "z")
    assert.same({ "xyz" }, log)
    assert.equal("XYZ", s.value)
  end)

  it("focus and blur toggle editing; blur when not editing does nothing", function()
    local events = {}
    local tf = TextField "Name" { text = State(""), onEditingChanged = function(e) events[#events + 1] = e end }
    assert.is_false(blur(tf))
    assert.same({}, events)
    focus(tf)
    focus(tf)
    assert.same({ true }, events)
    assert.is_true(blur(tf))
    assert.is_false(blur(tf))
    assert.same({ true, false }, events)
  end)

  it("focusing another field ends editing on the first", function()
    local log = {}
    local a = TextField "A" { text = State(""), onEditingChanged = function(e) log[#log + 1] = "A" .. tostring(e) end }
    local b = TextField "B" { text = State(""), onEditingChanged = function(e) log[#log + 1] = "B" .. tostring(e) end }
    focus(a)
    typeText(b, "x")
    assert.same({ "Atrue", "Afalse", "Btrue" }, log)
    assert.is_false(a.isEditing)
  end)

  it("tap on a field begins editing", function()
    local tf = TextField "Name" { text = State("") }
    tap(tf)
    assert.is_true(tf.isEditing)
  end)

  it("requires a text binding", function()
    assert.error_matches(function() return TextField "Name" {} end, "needs 'text'")
    assert.error_matches(function() return TextField "Name" { text = "plain" } end,
      "bad field 'text' in TextField \"Name\" { … } %(Binding or State expected, got string%)")
  end)

  it("typeText checks its arguments", function()
    local tf = TextField "N" { text = State("") }
    assert.error_matches(function() typeText(tf, 5) end, "bad argument #2 to 'typeText' %(string expected, got number%)")
    assert.error_matches(function() typeText(View "V", "x") end,
      "bad argument #1 to 'typeText' %(TextField or SecureField expected, got V%)")
    assert.error_matches(function() typeText("x", "x") end, "bad argument #1 to 'typeText'")
  end)
end)

describe("SecureField", function()
  it("types into its binding and commits", function()
    local pw = State("")
    local committed = 0
    local f = SecureField "Password" { text = pw, onCommit = function() committed = committed + 1 end }
    typeText(f, "s3cret")
    commit(f)
    assert.equal("s3cret", pw.value)
    assert.equal(1, committed)
  end)

  it("has no onEditingChanged", function()
    assert.error_matches(function() return SecureField "P" { text = State(""), onEditingChanged = function() end } end,
      "onEditingChanged")
  end)
end)

describe("Slider", function()
  it("slide clamps, steps, and reports editing true → value → false", function()
    local v = State(0)
    local log = {}
    local s = Slider { value = v, range = { 0, 10 }, step = 2, onEditingChanged = function(e) log[#log + 1] = e end }
    s:onChange(v, function(new) log[#log + 1] = new end)
    mount(s)
    slide(s, 4.9)
    assert.same({ true, 4, false }, log)
    assert.equal(4, v.value)
    slide(s, 99)
    assert.equal(10, v.value)
    slide(s, -3)
    assert.equal(0, v.value)
    assert.equal(0, s.value)
  end)

  it("defaults to the range 0...1, continuous", function()
    local v = State(0)
    local s = Slider { value = v }
    slide(s, 0.25)
    assert.equal(0.25, v.value)
    slide(s, 2)
    assert.equal(1, v.value)
    assert.same({ 0, 1 }, s.range)
  end)

  it("snaps to fractional steps without float noise", function()
    local v = State(0)
    local s = Slider { value = v, range = { 0, 1 }, step = 0.1 }
    slide(s, 0.35)
    assert.equal(0.4, v.value)
    slide(s, 0.72)
    assert.equal(0.7, v.value)
  end)

  it("checks its fields", function()
    assert.error_matches(function() return Slider {} end, "needs 'value'")
    assert.error_matches(function() return Slider { value = State(0), range = { 5, 1 } } end, "range")
    assert.error_matches(function() return Slider { value = State(0), step = -1 } end, "step")
  end)
end)

describe("Stepper", function()
  it("binding form steps within the range", function()
    local v = State(1)
    local editing = {}
    local s = Stepper "Qty" { value = v, range = { 0, 3 }, step = 1, onEditingChanged = function(e) editing[#editing + 1] = e end }
    increment(s)
    increment(s)
    increment(s) -- at the top: nothing happens
    assert.equal(3, v.value)
    assert.same({ true, false, true, false }, editing)
    decrement(s)
    assert.equal(2, v.value)
  end)

  it("binding form without a range is unbounded", function()
    local v = State(0)
    local s = Stepper "N" { value = v, step = 5 }
    decrement(s)
    assert.equal(-5, v.value)
  end)

  it("free form calls onIncrement / onDecrement; false disables", function()
    local n = 0
    local s = Stepper "Free" { onIncrement = function() n = n + 1 end, onDecrement = false }
    increment(s)
    increment(s)
    decrement(s)
    assert.equal(2, n)
  end)

  it("free form requires both keys", function()
    assert.error_matches(function() return Stepper "S" { onIncrement = function() end } end, "onDecrement")
    assert.error_matches(function() return Stepper "S" {} end, "needs 'value'")
    assert.error_matches(function() return Stepper "S" { onIncrement = 1, onDecrement = false } end,
      "function or false expected, got number")
  end)
end)

describe("Toggle", function()
  it("toggle and tap flip isOn through the binding", function()
    local on = State(false)
    local t = Toggle "Wi-Fi" { isOn = on }
    toggle(t)
    assert.is_true(on.value)
    assert.is_true(t.isOn)
    tap(t)
    assert.is_false(on.value)
  end)

  it("toggle returns true when performed, also when it turns the toggle off (found by an acceptance probe)", function()
    local t = Toggle "Wi-Fi" { isOn = State(true) }
    assert.is_true(toggle(t))
    assert.is_false(t.isOn)
    assert.is_true(toggle(t))
    assert.is_true(t.isOn)
    t:disabled(true)
    assert.is_false(toggle(t))
    assert.is_true(t.isOn)
  end)
end)

describe("SegmentedControl", function()
  it("selectSegment runs the segment's action and valueChanged", function()
    local log = {}
    local seg = SegmentedControl {
      segments = {
        { title = "One", action = function(sender, action) log[#log + 1] = action.title end },
        { title = "Two", action = function(sender, action) log[#log + 1] = action.title end },
      },
    }
    seg.on.valueChange(function(i) log[#log + 1] = i end)
    assert.is_nil(seg.selectedSegment)
    selectSegment(seg, 2)
    assert.is_true(selectSegment(seg, 2)) -- already selected: taken, nothing runs
    selectSegment(seg, 1)
    assert.same({ "Two", 2, "One", 1 }, log)
    assert.equal(1, seg.selectedSegment)
    assert.same({ "One", "Two" }, seg.segments)
  end)

  it("a segment's action gets the segment's id (found by an acceptance probe)", function()
    local got
    local seg = SegmentedControl { segments = { { title = "One" },
      { title = "Two", id = "two", action = function(_, action) got = action end } } }
    selectSegment(seg, 2)
    assert.equal("Two", got.title)
    assert.equal("two", got.id)
    assert.equal(2, got.index)
  end)

  it("checks the index", function()
    local seg = SegmentedControl { segments = { { title = "A" } } }
    assert.error_matches(function() selectSegment(seg, 3) end, "bad argument #2 to 'selectSegment'")
    assert.error_matches(function() return SegmentedControl {} end, "needs 'segments'")
  end)
end)

describe("closure sugar", function()
  it("on.tap on a Button, on.valueChange on a Slider, on.textChange on a TextField", function()
    local log = {}
    local b = Button "B" { action = function() log[#log + 1] = "action" end }
    local h = b.on.tap(function(...) log[#log + 1] = select("#", ...) end)
    assert.equal("function", type(h.cancel))
    tap(b)
    assert.same({ "action", 0 }, log)

    local v = State(0)
    local s = Slider { value = v, range = { 0, 10 } }
    local values = {}
    s.on.valueChange(function(x) values[#values + 1] = x end)
    slide(s, 3)
    slide(s, 3)
    assert.same({ 3 }, values)

    local texts = {}
    local tf = TextField "T" { text = State("") }
    tf.on.textChange(function(t) texts[#texts + 1] = t end)
    typeText(tf, "hi")
    assert.same({ "h", "hi" }, texts)
  end)

  it("on.tap on a plain view adds a tap gesture", function()
    local n = 0
    local card = View "Card"
    card.on.tap(function() n = n + 1 end)
    tap(card)
    assert.equal(1, n)
  end)

  it("errors listing what the node supports", function()
    local s = Slider { value = State(0) }
    assert.error_matches(function() s.on.tap(function() end) end, "Slider does not support on.tap %(it supports on.valueChange%)")
    local b = Button "B" { action = function() end }
    assert.error_matches(function() b.on.textChange(function() end) end, "it supports on.tap")
    assert.error_matches(function() View "V".on.valueChange(function() end) end, "V does not support on.valueChange")
  end)

  it("refuse NaN and non-finite ranges and steps, and slide huge ranges without leaving them", function()
    local s = State(0)
    local sl = Slider { value = s, range = { 0, 10 }, step = 1 }
    assert.error_matches(function() slide(sl, 0 / 0) end, "bad argument #2 to 'slide' (number expected, got nan)", 1, true)
    assert.equal(0, s.value)
    slide(sl, math.huge)
    assert.equal(10, s.value)
    assert.error_matches(function() return Slider { value = State(0), range = { 0 / 0, 1 } } end, "bad field 'range'")
    assert.error_matches(function() return Slider { value = State(0), range = { 0, 1 }, step = math.huge } end,
      "bad field 'step'")
    local big = State(0)
    local b = Slider { value = big, range = { math.mininteger, math.maxinteger }, step = 1 }
    slide(b, math.mininteger)
    assert.equal(math.mininteger, big.value)
    local f = State(0)
    local fine = Slider { value = f, range = { 0, 1e18 }, step = 0.001 }
    slide(fine, 1e18)
    assert.is_true(f.value <= 1e18)
  end)
end)
