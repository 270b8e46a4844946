-- SPEC §2.10: the enabled state (SwiftUI .disabled, UIKit isEnabled).
describe("disabled controls", function()
  it("a disabled Button performs nothing, returns false and records a disabled step", function()
    local ran = spy.new(function() end)
    local save = Button "Save" { action = ran, id = "save", disabled = true }
    mount(View "Root" { save })
    assert.is_false(tap(save))
    assert.spy(ran).was.called(0)
    assert.is_false(save.isEnabled)
    local trace = responder.lastTrace()
    assert.equal("disabled", trace[1].decision)
    assert.equal(save, trace[1].node)
    assert.equal("action tap from Button#save\n  Button#save     disabled", tostring(trace))
  end)

  it("node:disabled applies to the whole subtree, and a false below cannot re-enable", function()
    local ran = spy.new(function() end)
    local ok = Button "OK" { action = ran, disabled = false }
    local form = View "Form" { View "Row" { ok } }
    mount(View "Root" { form })
    assert.equal(form, form:disabled(true))
    assert.is_false(ok.isEnabled)
    assert.is_false(tap(ok))
    form:disabled(false)
    assert.is_true(ok.isEnabled)
    tap(ok)
    assert.spy(ran).was.called(1)
    form:disabled(nil)
    assert.is_true(ok.isEnabled)
  end)

  it("a State or Binding is read at each input", function()
    local invalid = State(true)
    local ran = spy.new(function() end)
    local save = Button "Save" { action = ran, disabled = invalid }
    mount(View "Root" { save })
    assert.is_false(tap(save))
    invalid.value = false
    tap(save)
    assert.spy(ran).was.called(1)
    local b = Binding { get = function() return true end, set = function() end }
    save:disabled(b)
    assert.is_false(tap(save))
    assert.spy(ran).was.called(1)
  end)

  it("every simulated input and sendActions refuse a disabled control", function()
    local text, value, on = State(""), State(5), State(false)
    local field = TextField "Name" { text = text, disabled = true }
    local slider = Slider { value = value, range = { 0, 10 }, disabled = true }
    local stepper = Stepper "N" { value = value, disabled = true }
    local switch = Toggle "T" { isOn = on, disabled = true }
    local seg = SegmentedControl { segments = { { title = "A" }, { title = "B" } }, disabled = true }
    local root = View "Root" { field, slider, stepper, switch, seg }
    mount(root)
    assert.is_false(typeText(field, "abc"))
    assert.is_false(focus(field))
    assert.is_false(commit(field))
    assert.is_false(slide(slider, 3))
    assert.is_false(increment(stepper))
    assert.is_false(decrement(stepper))
    assert.is_false(toggle(switch))
    assert.is_false(selectSegment(seg, 2))
    assert.is_false(sendActions(switch, "valueChanged"))
    assert.equal("", text.value)
    assert.equal(5, value.value)
    assert.is_false(on.value)
    assert.is_nil(seg.selectedSegment)
    assert.equal("disabled", responder.lastTrace()[1].decision)
  end)

  it("an enabled control's input returns true, or its value; false only when it performed nothing", function()
    local text = State("")
    local field = TextField "Name" { text = text, onCommit = function() end }
    local seg = SegmentedControl { segments = { { title = "A" }, { title = "B" } } }
    local up = Stepper "Free" { onIncrement = function() end, onDecrement = false }
    mount(View "Root" { field, seg, up })
    assert.is_true(typeText(field, "abc"))
    assert.is_true(focus(field))
    assert.is_true(commit(field))
    assert.is_false(blur(field))  -- commit ended editing: nothing to end, nothing performed
    assert.is_true(focus(field))
    assert.is_true(blur(field))
    assert.is_true(selectSegment(seg, 2))
    assert.is_true(increment(up))
    assert.is_false(decrement(up))  -- no action for that direction: nothing performed
    assert.equal("abc", text.value)
  end)

  it("assigning isEnabled, or a control's bound value, says what to do instead (found by an acceptance probe)", function()
    local b = Button "B" { action = function() end }
    local t = Toggle "T" { isOn = State(false) }
    assert.error_matches(function() b.isEnabled = false end,
      "cannot assign field 'isEnabled' of a node (disable it with node:disabled(true)", nil, true)
    assert.error_matches(function() t.isOn = true end,
      "cannot assign field 'isOn' of a node %(it reads the control's binding")
    assert.error_matches(function() b.color = "red" end, "use node.props.color for your own data", nil, true)
  end)

  it("an enabled control's sendActions still returns how many ran", function()
    local b = Button "B" { action = function() end }
    assert.equal(1, sendActions(b, "touchUpInside"))
  end)

  it("tap on a plain node inside a disabled subtree is refused too", function()
    local tapped = spy.new(function() end)
    local card = View "Card"
    card:onTapGesture(function() tapped() end)
    local root = View "Root" { card }
    root:disabled(true)
    assert.is_false(tap(card))
    assert.spy(tapped).was.called(0)
  end)

  it("checks its arguments", function()
    assert.error_matches(function() Button "B" { action = function() end, disabled = 3 } end,
      "bad field 'disabled' %(boolean, State or Binding expected, got number%)")
    assert.error_matches(function() View "V":disabled("yes") end,
      "bad argument #1 to 'disabled' %(boolean, State or Binding expected, got string%)")
  end)
end)

describe("tap counts", function()
  it("tap with a count no action has is an error", function()
    local b = Button "B" { action = function() end }
    assert.error_matches(function() tap(b, 2) end, "Button has no tap action for 2 taps %(it has: 1 tap%)")
  end)
end)
