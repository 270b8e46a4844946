-- Arguments the kit refuses (SPEC §2.1: a wrong kind of value raises an error naming the
-- function, the expected kind and what was given), found by an acceptance probe.

describe("kit arguments", function()
  it("a missing argument is 'no value', an explicit nil is 'nil', as in Lua's own errors", function()
    assert.error_matches(function() advance() end,
      "bad argument #1 to 'advance' %(seconds %(non%-negative finite number%) expected, got no value%)")
    assert.error_matches(function() advance(nil) end, "expected, got nil%)")
    assert.error_matches(function() post() end,
      "bad argument #1 to 'post' %(notification name %(string%) expected, got no value%)")
    task(function()
      assert.error_matches(function() sleep() end, "bad argument #1 to 'sleep' .* got no value%)")
    end)
  end)

  it("after and every say the seconds must be finite", function()
    assert.error_matches(function() after(math.huge, function() end) end,
      "bad argument #1 to 'after' %(seconds %(non%-negative finite number%) expected, got number inf%)")
    assert.error_matches(function() every(math.huge, function() end) end,
      "bad argument #1 to 'every' %(seconds %(positive finite number%) expected, got number inf%)")
  end)

  it("disabled() without an argument is refused; disabled(nil) clears the setting", function()
    local r = View "R"
    r:disabled(true)
    assert.error_matches(function() r:disabled() end,
      "bad argument #1 to 'disabled' %(boolean, State or Binding expected, got no value%)")
    assert.is_false(r.isEnabled)
    r:disabled(nil)
    assert.is_true(r.isEnabled)
  end)

  it("a segment's id is a string when the control is made, as insertSegment takes it", function()
    assert.error_matches(function()
      return SegmentedControl { segments = { { title = "a", id = 5, action = function() end } } }
    end, "bad segment #1 in SegmentedControl .*%(field 'id' must be a string%)")
    local seg = SegmentedControl { segments = { { title = "a", id = "first" } } }
    assert.equal(1, seg:segmentIndex("first"))
  end)

  it("removeTarget takes the kinds of target addTarget takes", function()
    local b = Button "B" { action = function() end }
    assert.error_matches(function() b:removeTarget(5) end,
      "bad argument #1 to 'removeTarget' %(node, table or nil expected, got number%)")
    assert.error_matches(function() b:removeTarget("x") end, "got string%)")
    assert.equal(b, b:removeTarget(nil))
  end)
end)

describe("generated action ids", function()
  it("never repeat an id the script chose", function()
    local b = Button "B" { action = function() end }
    b:addAction(function() end, { id = "action#1" })
    local gen = b:addAction(function() end)
    assert.are_not.equal("action#1", gen)
    local ids = {}
    for _, h in ipairs(b:eventHandlers()) do ids[#ids + 1] = h.id end
    assert.same({ "action", "action#1", gen }, ids)
    b:removeAction(gen)
    ids = {}
    for _, h in ipairs(b:eventHandlers()) do ids[#ids + 1] = h.id end
    assert.same({ "action", "action#1" }, ids)
  end)
end)

describe("a kit callback nested too deeply", function()
  it("names the script's line, not the kit's file", function()
    local v = View "V" { x = 0 }
    mount(View "Root" { v })
    v:observe("x", function(n) v.props.x = n + 1 end)
    local w
    assert.warns("unhandledError", function() v.props.x = 1 end)
    for _, r in ipairs(responder.warnings()) do w = r.message end
    assert.truthy(w:find("argument_checks_spec%.lua:%d+: dispatch nested too deeply"), w)
    assert.falsy(w:find("Sources/", 1, true), w)
  end)
end)

describe("control fields out of range", function()
  it("show the number given, as argument errors do (found by an acceptance probe)", function()
    local ok, err = pcall(function() return Slider { value = State(0):binding(), range = { 0, 1 }, step = 0 } end)
    assert.is_false(ok)
    assert.matches("bad field 'step' in Slider { … } %(positive number expected, got number 0%)$", err)
    ok, err = pcall(function() return Stepper "S" { value = State(0):binding(), step = -1 } end)
    assert.is_false(ok)
    assert.matches("%(positive number expected, got number %-1%)$", err)
    ok, err = pcall(function() return Stepper "S" { value = State(0):binding(), step = "x" } end)
    assert.is_false(ok)
    assert.matches("%(positive number expected, got string%)$", err)
  end)
end)
