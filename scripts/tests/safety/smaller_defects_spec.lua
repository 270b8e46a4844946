-- Issue 7, item 11: smaller defects.

describe("argument errors", function()
  it("environment with a NaN key is a bad argument, not an internal error", function()
    local n = View "N"
    assert.error_matches(function() n:environment(0 / 0, 1) end,
      "bad argument #1 to 'environment' %(key %(not nil or NaN%) expected, got number%)")
    assert.error_matches(function() n:environment(nil, 1) end, "bad argument #1 to 'environment'")
    n:environment("k", 1)
    assert.equal(1, n:env("k"))
    assert.is_nil(n:env(0 / 0))
  end)

  it("a bad self is worded as Lua words it", function()
    local P = Event "P"
    local n = View "N"
    assert.error_matches(function() n.trigger(5, P()) end,
      "calling 'trigger' on bad self %(node expected, got number%)")
    assert.error_matches(function() n.find("x", "#a") end,
      "calling 'find' on bad self %(node expected, got string%)")
    assert.error_matches(function() n.onAppear({}, function() end) end,
      "calling 'onAppear' on bad self %(node expected, got table%)")
    -- other arguments keep their numbers
    assert.error_matches(function() n:trigger(5) end, "bad argument #1 to 'trigger' %(event expected, got number%)")
  end)
end)

describe("advance", function()
  it("runs 20,000 sleeping tasks within the default instruction budget", function()
    local done = 0
    local buttons = {}
    for i = 1, 20000 do
      buttons[i] = AsyncButton("B" .. i) { action = function() sleep(i % 7 + 1); done = done + 1 end }
    end
    for i = 1, 20000 do tap(buttons[i]) end
    assert.equal(0, done)
    advance(3)
    local early = done
    assert.is_true(early > 0 and early < 20000)
    advance(10)
    assert.equal(20000, done)
  end)

  it("keeps the order of due times, then of scheduling, and skips cancelled tasks", function()
    local order = {}
    local tasks = {}
    local root = View "Root"
    root:onAsyncTaskStarted(function(t) tasks[#tasks + 1] = t end)
    for i, delay in ipairs { 3, 1, 2, 1, 3 } do
      root:add(AsyncButton("B" .. i) { action = function() sleep(delay); order[#order + 1] = i end })
    end
    for _, b in ipairs(root.children) do tap(b) end
    tasks[4]:cancel()
    advance(5)
    assert.same({ 2, 3, 1, 5 }, order)
  end)
end)

describe("safety disabled", function()
  it("builds no violation text", function()
    local formatted = 0
    local costly = setmetatable({}, { __tostring = function() formatted = formatted + 1; return "costly" end })
    local P = Event "P"
    local E = Error "E"
    local root = View "Root" { View "Leaf" }
    root:safetyLevel("disabled")
    local leaf = root.children[1]
    for _ = 1, 20 do
      assert.is_false(leaf:trigger(P { field = costly }).handled)
      assert.is_false(leaf:report(E { field = costly }).handled)
    end
    leaf:triggers(Event "Declared")
    leaf:trigger(P { field = costly })
    assert.equal(0, formatted)
    assert.equal(0, #responder.warnings())
    -- the same dispatch under relaxed safety does format the value
    root:safetyLevel("relaxed")
    local quiet = View "Quiet"
    quiet:trigger(Event "Q" ())
    responder.clearWarnings()
    leaf:report(E { field = costly })
    assert.is_true(formatted > 0)
    responder.clearWarnings()
  end)
end)

-- found by an acceptance probe: messages that said too little
describe("messages of assignments and arguments", function()
  it("an outcome, trace, ctx or publisher refuses assignment saying it is read-only", function()
    local E = Event "E"
    local n = View "N"
    local caught
    n:handleEvent(E, function(_, ctx) caught = select(2, pcall(function() ctx.node = n end)) end)
    local o = n:trigger(E {})
    assert.matches("smaller_defects_spec.lua:%d+: cannot assign field 'node' of a context %(it is read%-only%)", caught)
    assert.error_matches(function() o.handled = false end,
      "^cannot assign field 'handled' of an outcome %(it is read%-only%)")
    assert.error_matches(function() o.trace.x = 1 end, "cannot assign field 'x' of a trace %(it is read%-only%)")
    assert.error_matches(function() n:publisher(E).x = 1 end, "cannot assign field 'x' of a publisher")
  end)

  it("replacing a node's props says to assign its fields", function()
    local n = View "N"
    assert.error_matches(function() n.props = {} end,
      "cannot assign field 'props' of a node %(assign its fields: node.props.name = value%)")
  end)

  it("onTapGesture refuses options it does not take", function()
    local n = View "N"
    assert.error_matches(function() n:onTapGesture { perform = function() end, bogus = 1 } end,
      "bad option 'bogus' to 'onTapGesture' %(options are trigger, perform, count%)")
  end)

  it("a bad argument shows a number out of range and a string not among the choices", function()
    local n = View "N"
    assert.error_matches(function() n:safetyLevel("Strict") end,
      "bad argument #1 to 'safetyLevel' %(\"relaxed\", \"strict\" or \"disabled\" expected, got string \"Strict\"%)")
    local seg = SegmentedControl { segments = { { title = "A" } } }
    assert.error_matches(function() seg:setAction(9, nil) end,
      "bad argument #1 to 'setAction' %(segment index %(1..1%) expected, got number 9%)")
  end)
end)
