-- SPEC §2.5 strict: a violation inside a kit callback (notification, observation, preference,
-- disappear, task callbacks) aborts the script's call that ran it, as one inside a responder or a
-- control's action does: no responder turns it into a LuaError, and nothing of it is left for a
-- later call to raise.

describe("strict violations inside kit callbacks", function()
  local A, B = Event "A", Event "B"
  local caught

  -- a strict tree whose root would catch any LuaError the violation became
  local function strictTree()
    caught = {}
    local inner = View "Inner"
    local root = View "Root" { inner }
    root:safetyLevel("strict")
    root:handleError(LuaError, function(e) caught[#caught + 1] = e.message end)
    root:handleEvent(A, function() end)
    mount(root)
    return root, inner
  end

  it("abort post from an onReceive handler", function()
    local root, inner = strictTree()
    root:onReceive("ping", function() inner:trigger(B()) end)
    assert.error_matches(function() post("ping") end, "unhandled event B{} from Inner")
    assert.same({}, caught)
  end)

  it("abort a props assignment from an observe handler", function()
    local root, inner = strictTree()
    root.props.size = 0
    root:observe("size", function() inner:trigger(B()) end)
    assert.error_matches(function() root.props.size = 1 end, "unhandled event B{}")
    assert.same({}, caught)
  end)

  it("abort remove from an onDisappear handler, which still removes the node", function()
    local root, inner = strictTree()
    inner:onDisappear(function() root:trigger(B()) end)
    assert.error_matches(function() inner:remove() end, "unhandled event B{} from Root")
    assert.is_nil(inner.parent)
    assert.same({}, caught)
    assert.truthy(root:trigger(A()).handled)
  end)

  it("abort task from an onAsyncTaskStarted handler", function()
    local root = strictTree()
    root:onAsyncTaskStarted(function() root:trigger(B()) end)
    assert.error_matches(function() task(function() sleep(1) end, { node = root }) end, "unhandled event B{}")
    assert.same({}, caught)
  end)

  it("from onAppear are raised by add once, not again by the next call", function()
    local root = strictTree()
    local c = View "C"
    c:onAppear(function() c:trigger(B()) end)
    assert.error_matches(function() root:add(c) end, "unhandled event B{} from C")
    local ok, outcome = pcall(root.trigger, root, A())
    assert.is_true(ok)
    assert.is_true(outcome.handled)
  end)

  it("from onAppear are raised by mount once, not again by the next call", function()
    responder.reset()
    local r = View "R"
    r:safetyLevel("strict")
    r:handleEvent(A, function() end)
    r:onAppear(function() r:trigger(B()) end)
    assert.error_matches(function() mount(r) end, "unhandled event B{} from R")
    local ok, outcome = pcall(r.trigger, r, A())
    assert.is_true(ok)
    assert.is_true(outcome.handled)
  end)

  it("end the task they abort, without callbacks, so that its button is not left loading", function()
    local root = strictTree()
    local ended, changed = {}, {}
    local ab = AsyncButton "AB" { action = function()
      sleep(1)
      root:trigger(B())
      error("not reached")
    end }
    root:add(ab)
    root:onAsyncTaskEnded(function(t) ended[#ended + 1] = t.state end)
    root:onAsyncTaskChanged(function(t) changed[#changed + 1] = t and t.state or "none" end)
    tap(ab)
    assert.error_matches(function() advance(1) end, "unhandled event B{} from Root")
    assert.is_false(ab.isLoading)
    assert.is_true(ab.isEnabled)
    assert.same({}, ended)
    assert.same({ "running" }, changed)
    assert.same({}, caught)
  end)

  it("end the task they abort inside an action, so that its button is not left loading", function()
    local root = strictTree()
    local ab = AsyncButton "AB" { action = function() root:trigger(B()) end }
    root:add(ab)
    assert.error_matches(function() tap(ab) end, "unhandled event B{} from Root")
    assert.is_false(ab.isLoading)
    assert.is_true(ab.isEnabled)
    local Go = Event "Go"
    local later = AsyncButton "Later" { action = function() sleep(1); root:trigger(B()) end }
    root:add(later)
    root:handleEvent(Go, function() advance(1) end)
    tap(later)
    assert.error_matches(function() root:trigger(Go()) end, "unhandled event B{} from Root")
    assert.is_false(later.isLoading)
    assert.same({}, caught)
  end)
end)
