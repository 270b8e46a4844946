-- SPEC §2.9: async actions on a virtual clock.

local Done = Event "Done"

describe("async buttons and the virtual clock", function()
  it("the action runs at tap until its first sleep, then as time advances", function()
    local log = {}
    local button = AsyncButton "Save" { id = "save", action = function()
      log[#log + 1] = "start " .. now()
      sleep(2)
      log[#log + 1] = "woke " .. now()
      sleep(1)
      log[#log + 1] = "end " .. now()
    end }
    mount(View "Root" { button })
    assert.equal(0, now())
    tap(button)
    assert.same({ "start 0" }, log)
    advance(1)
    assert.same({ "start 0" }, log)
    assert.equal(1, now())
    advance(1)
    assert.same({ "start 0", "woke 2" }, log)
    advance(10)
    assert.same({ "start 0", "woke 2", "end 3" }, log)
    assert.equal(12, now())
  end)

  it("due tasks run in due-time order, then creation order", function()
    local log = {}
    local function button(name, delay)
      return AsyncButton(name) { action = function()
        sleep(delay)
        log[#log + 1] = name
      end }
    end
    local a, b, c = button("a", 3), button("b", 1), button("c", 3)
    mount(View "Root" { a, b, c })
    tap(a); tap(b); tap(c)
    advance(5)
    assert.same({ "b", "a", "c" }, log)
  end)

  it("the button is an AsyncButton node with a title", function()
    local button = AsyncButton "Save" { id = "s", action = function() end }
    assert.equal("AsyncButton#s", tostring(button))
    assert.equal("Save", button.props.title)
  end)

  it("started, ended and changed observe tasks of the subtree", function()
    local log = {}
    local button = AsyncButton "Go" { action = function() sleep(1) end }
    local root = View "Root" { View "Panel" { button } }
    root:onAsyncTaskStarted(function(t) log[#log + 1] = "started " .. t.state end)
    root:onAsyncTaskEnded(function(t) log[#log + 1] = "ended " .. t.state end)
    root:onAsyncTaskChanged(function(t) log[#log + 1] = "changed " .. (t and "task" or "nil") end)
    mount(root)
    tap(button)
    assert.same({ "started running", "changed task" }, log)
    advance(1)
    assert.same({ "started running", "changed task", "ended finished", "changed nil" }, log)
  end)

  it("every ancestor that registered a handler gets it, nearest first", function()
    local order = {}
    local button = AsyncButton "Go" { action = function() end }
    local root = View "Root" { View "Panel" { button } }
    root:onAsyncTaskStarted(function() order[#order + 1] = "root" end)
    root:find("Panel"):onAsyncTaskStarted(function() order[#order + 1] = "panel" end)
    tap(button)
    assert.same({ "panel", "root" }, order)
  end)

  it("cancel wakes a sleeping task with a CancellationError; ended still runs", function()
    local task, ended, after, err
    local button = AsyncButton "Go" { action = function()
      local ok, e = pcall(sleep, 10)
      err = e
      sleep(1)
      after = true
    end }
    local root = View "Root" { button }
    root:onAsyncTaskStarted(function(t) task = t end)
    root:onAsyncTaskEnded(function(t) ended = t end)
    mount(root)
    tap(button)
    task:cancel()
    assert.truthy(CancellationError:is(err))
    assert.equal(task, ended)
    assert.is_nil(after)
    assert.equal("cancelled", task.state)
    assert.is_true(task.isCancelled)
    advance(20)
    assert.is_nil(after)
  end)

  it("a cancelled task is not reported as an error", function()
    local task
    local button = AsyncButton "Go" { action = function() sleep(5) end }
    local root = View "Root" { button }
    root:onAsyncTaskStarted(function(t) task = t end)
    mount(root)
    responder.clearWarnings()
    tap(button)
    task:cancel()
    assert.equal(0, #responder.warnings())
  end)

  it("a task that ends by a cancellation or an error closes its to-be-closed variables first", function()
    local log = {}
    local function closer(tag, fails)
      return setmetatable({}, { __close = function(_, err)
        log[#log + 1] = tag .. (err and " with error" or "")
        if fails then error("close of " .. tag .. " failed", 0) end
      end })
    end
    local root = View "Root"
    root:handleError(function(e) log[#log + 1] = "reported " .. e.message end)
    root:onAsyncTaskEnded(function(t) log[#log + 1] = "ended " .. t.state end)
    mount(root)
    local cancelled = task(function() local _ <close> = closer("cancelled"); sleep(1) end, { node = root })
    cancelled:cancel()
    task(function() local _ <close> = closer("failed"); sleep(1); error("boom", 0) end, { node = root })
    advance(1)
    local closeFails = task(function() local _ <close> = closer("close fails", true); sleep(1) end, { node = root })
    closeFails:cancel()
    assert.same({
      "cancelled with error", "ended cancelled",
      "failed with error", "reported boom", "ended failed",
      -- an error of a closing method is the task's end, as in a function
      "close fails with error", "reported close of close fails failed", "ended failed",
    }, log)
    assert.equal("close of close fails failed", closeFails.error)
  end)

  it("errors raised in the action are reported from the button as LuaError", function()
    local caught
    local button = AsyncButton "Go" { action = function()
      sleep(1)
      error("network down")
    end }
    local root = View "Root" { button }
    root:handleError(function(e) caught = e end)
    mount(root)
    tap(button)
    assert.is_nil(caught)
    advance(1)
    assert.truthy(LuaError:is(caught))
    assert.truthy(caught.message:find("network down", 1, true))
    assert.equal(button, caught.node)
  end)

  it("error values raised in the action keep their type", function()
    local Failed = Error "Failed"
    local caught
    local button = AsyncButton "Go" { action = function() error(Failed { code = 3 }) end }
    local root = View "Root" { button }
    root:handleError(Failed, function(e) caught = e end)
    tap(button)
    assert.equal(3, caught.code)
  end)

  it("events triggered from the task go up the hierarchy", function()
    local button
    button = AsyncButton "Go" { action = function()
      sleep(1)
      button:trigger(Done { at = now() })
    end }
    local root = View "Root" { button }
    local got
    root:handleEvent(Done, function(e) got = e.at end)
    mount(root)
    tap(button)
    advance(1)
    assert.equal(1, got)
  end)

  it("sleep outside a task is an error", function()
    assert.error_matches(function() sleep(1) end, "sleep called outside a task")
  end)

  it("advance checks its argument; the clock starts at zero after reset", function()
    assert.error_matches(function() advance(-1) end, "bad argument #1 to 'advance'")
    assert.error_matches(function() advance(math.huge) end,
      "bad argument #1 to 'advance' %(seconds %(non%-negative finite number%) expected, got number inf%)")
    assert.error_matches(function() advance(0 / 0) end, "bad argument #1 to 'advance'")
    advance(3)
    assert.equal(3, now())
    responder.reset()
    assert.equal(0, now())
  end)

  it("AsyncButton requires an action", function()
    assert.error_matches(function() return AsyncButton "X" {} end, "bad field 'action' in AsyncButton")
  end)

  it("bindings work inside the script's own coroutines", function()
    local co = coroutine.wrap(function()
      local v = View "A" { id = "x" }
      coroutine.yield(tostring(v))
      return v:path()
    end)
    assert.equal("A#x", co())
    assert.equal("A#x", co())
  end)

  it("every onAsyncTaskStarted/Ended/Changed a node registers runs, in order", function()
    local seen = {}
    local ab = AsyncButton "AB" { action = function() sleep(1) end }
    local root = View "Root" { ab }
    root:onAsyncTaskStarted(function() seen[#seen + 1] = "started 1" end)
    root:onAsyncTaskStarted(function() seen[#seen + 1] = "started 2" end)
    root:onAsyncTaskEnded(function() seen[#seen + 1] = "ended 1" end)
    root:onAsyncTaskEnded(function() seen[#seen + 1] = "ended 2" end)
    root:onAsyncTaskChanged(function(t) seen[#seen + 1] = "changed 1 " .. tostring(t ~= nil) end)
    root:onAsyncTaskChanged(function(t) seen[#seen + 1] = "changed 2 " .. tostring(t ~= nil) end)
    mount(root)
    tap(ab)
    advance(1)
    assert.same({ "started 1", "started 2", "changed 1 true", "changed 2 true",
                  "ended 1", "ended 2", "changed 1 false", "changed 2 false" }, seen)
  end)

  it("sleep inside a responder a task triggered says why it cannot suspend", function()
    local A = Event "A"
    local root = View "Root"
    local message
    root:handleEvent(A, function() sleep(1) end)
    root:handleError(LuaError, function(e) message = e.message end)
    mount(root)
    task(function() root:trigger(A()) end, { node = root })
    assert.matches("sleep cannot suspend the task here", message, 1, true)
  end)

  it("sleep in a coroutine made inside a task, or in a C function's callback, says which (found by an acceptance probe)", function()
    local root = View "Root"
    local messages = {}
    root:handleError(LuaError, function(e) messages[#messages + 1] = e.message end)
    mount(root)
    task(function() coroutine.wrap(function() sleep(1) end)() end, { node = root })
    task(function() table.sort({ 2, 1 }, function(a, b) sleep(1); return a < b end) end, { node = root })
    assert.equal(2, #messages)
    assert.matches("sleep called in a coroutine made inside a task: only the task's own function can sleep",
      messages[1], 1, true)
    assert.matches("a C function such as table.sort's comparator", messages[2], 1, true)
  end)

  it("responder.reset() cancels the tasks still running, without callbacks", function()
    local resumed = false
    local t = task(function() sleep(1); resumed = true end)
    assert.equal("sleeping", t.state)
    responder.reset()
    assert.equal("cancelled", t.state)
    assert.equal("Task#" .. t.id .. "(cancelled)", tostring(t))
    advance(5)
    assert.is_false(resumed)
  end)
end)

describe("an AsyncButton is a target-action control like Button (SPEC §2.9)", function()
  it("its action is the touchUpInside entry of its dispatch table; added actions run after it", function()
    local log = {}
    local b = AsyncButton "Save" { id = "save", action = function(t)
      log[#log + 1] = "task " .. tostring(t); sleep(1); log[#log + 1] = "woke"
    end }
    mount(View "Root" { b })
    local id = b:addAction(function(sender) log[#log + 1] = "added " .. sender.id end)
    local handlers = b:eventHandlers()
    assert.equal(2, #handlers)
    assert.same({ "touchUpInside", "action", "Save" }, { handlers[1].event, handlers[1].id, handlers[1].title })
    assert.equal("action#1", id)
    assert.equal(id, handlers[2].id)
    assert.is_true(tap(b))
    assert.same({ "task Task#1(AsyncButton#save, running)", "added save" }, log)
    assert.equal("action touchUpInside from AsyncButton#save\n"
      .. "  AsyncButton#save #1 action(action)               handled\n"
      .. "  AsyncButton#save #2 action(action#1)             handled",
      tostring(responder.lastTrace()))
    advance(1)
    assert.same({ "task Task#1(AsyncButton#save, running)", "added save", "woke" }, log)
  end)

  it("sendActions and on.tap start it too; a press while it runs is refused, also when it stays enabled", function()
    local started, taps = 0, 0
    local b = AsyncButton "Go" { disabledWhenLoading = false, action = function() started = started + 1; sleep(1) end }
    mount(View "Root" { b })
    b.on.tap(function() taps = taps + 1 end)
    assert.equal(2, sendActions(b, "touchUpInside"))
    assert.same({ 1, 1 }, { started, taps })
    assert.is_true(b.isLoading)
    assert.is_true(b.isEnabled)
    assert.is_false(tap(b))
    assert.is_false(sendActions(b, "touchUpInside"))
    assert.same({ 1, 1 }, { started, taps })
    advance(1)
    assert.is_true(tap(b))
    assert.same({ 2, 2 }, { started, taps })
  end)

  it("a nil-target action on it walks the responder chain", function()
    local performed
    local b = AsyncButton "Go" { action = function() end }
    local root = View "Root" { b }
    root:canPerform("save", function(sender) performed = sender end)
    mount(root)
    b:addTarget(nil, "save")
    tap(b)
    assert.equal(b, performed)
  end)

  it("its fields are checked as before, and a control's errors name it", function()
    assert.error_matches(function() AsyncButton "X" { disabledWhenLoading = 1, action = function() end } end,
      "bad field 'disabledWhenLoading' in AsyncButton %(boolean expected, got number%)")
    assert.error_matches(function() sendActions(View "V", "touchUpInside") end,
      "a control expected: Button, TextField, SecureField, Slider, Stepper, Toggle, SegmentedControl or AsyncButton; got V")
  end)
end)

describe("tasks the script ends from inside", function()
  it("a reset inside a task, timer or async action ends it without an internal error", function()
    task(function() responder.reset() end)
    advance(1)
    after(1, function() responder.reset() end)
    advance(2)
    local b = AsyncButton "B" { action = function() sleep(1) responder.reset() end }
    mount(View "R" { b })
    tap(b)
    advance(2)
    assert.is_false(b.isLoading)
  end)

  it("what a task raises after a reset inside it still reaches the script", function()
    task(function()
      sleep(1)
      responder.reset()
      error("after the reset")
    end)
    assert.error_matches(function() advance(2) end, "after the reset")
  end)

  it("a button removed while its task runs cancels it; its old ancestors hear that it ended", function()
    local log = {}
    local after
    local button = AsyncButton "Go" { action = function() sleep(10); after = true end }
    local panel = View "Panel" { button }
    local root = View "Root" { panel }
    root:onAsyncTaskEnded(function(t) log[#log + 1] = "ended " .. t.state end)
    root:onAsyncTaskChanged(function(t) log[#log + 1] = "changed " .. tostring(t and t.state) end)
    mount(root)
    tap(button)
    assert.same({ "changed running" }, log)
    panel:remove()
    assert.same({ "changed running", "ended cancelled", "changed nil" }, log)
    assert.is_false(button.isLoading)
    advance(20)
    assert.is_nil(after)
  end)

  it("a free task's node leaving the mounted tree cancels its tasks, as a button's (found by an acceptance probe)", function()
    local log = {}
    local row = View "Row"
    local root = View "Root" { row }
    root:onAsyncTaskEnded(function(t) log[#log + 1] = "ended " .. t.id .. " " .. t.state end)
    root:onAsyncTaskChanged(function(t) log[#log + 1] = "changed " .. tostring(t and t.state) end)
    mount(root)
    local ran = false
    local t1 = task(function() sleep(3); ran = true end, { node = row })
    local t2 = task(function() sleep(5); ran = true end, { node = row })
    local other = task(function() sleep(1) end, { node = root })
    row:remove()
    assert.equal("cancelled", t1.state)
    assert.equal("cancelled", t2.state)
    -- (changed(nil): no task of Row runs any more)
    assert.same({ "changed running", "changed running", "changed running", "ended 1 cancelled", "ended 2 cancelled",
      "changed nil" }, log)
    advance(10)
    assert.is_false(ran)
    assert.equal("finished", other.state)
    -- moved within the tree: it runs on
    local a, b = View "A", View "B"
    root:add(a); root:add(b)
    local moved = task(function() sleep(1) end, { node = a })
    b:add(a)
    advance(1)
    assert.equal("finished", moved.state)
  end)

  it("a button moved within the mounted tree keeps its task running", function()
    local done = false
    local button = AsyncButton "Go" { action = function() sleep(1); done = true end }
    local a, b = View "A" { button }, View "B"
    mount(View "Root" { a, b })
    tap(button)
    b:add(button)
    assert.is_true(button.isLoading)
    advance(1)
    assert.is_true(done)
  end)

  it("a task whose coroutine the script closed ends as cancelled", function()
    local co, ended
    local t = task(function() co = coroutine.running(); sleep(1); ended = true end)
    assert.is_true(coroutine.close(co))
    advance(5)
    assert.equal("cancelled", t.state)
    assert.is_nil(ended)
  end)
end)

describe("coroutine.wrap once the kit's tasks are loaded", function()
  it("behaves as Lua's: a dead coroutine's message, the caller's position, error objects", function()
    task(function() end)  -- the kit's scheduler (and its coroutine functions) in place
    local once = coroutine.wrap(function() coroutine.yield(1) end)
    assert.equal(1, once())
    once()
    assert.same({ false, "cannot resume dead coroutine" }, { pcall(once) })
    local failing = coroutine.wrap(function() error("inner") end)
    local ok, err = pcall(function() failing() end)
    assert.is_false(ok)
    assert.matches("^.-async_spec%.lua:%d+: .-async_spec%.lua:%d+: inner$", err)
    local object = {}
    local throwing = coroutine.wrap(function() error(object) end)
    assert.same({ false, object }, { pcall(throwing) })
    -- Lua's own argument errors
    assert.error_matches(function() coroutine.wrap() end,
      "bad argument #1 to 'wrap' (function expected, got no value)", 1, true)
    assert.error_matches(function() coroutine.resume(1) end,
      "bad argument #1 to 'resume' (thread expected, got number)", 1, true)
    -- a running coroutine resumed again is not closed (Lua's message, not close's)
    local again
    again = coroutine.wrap(function() return again() end)
    local okAgain, errAgain = pcall(again)
    assert.is_false(okAgain)
    assert.matches("cannot resume non%-suspended coroutine$", errAgain)
  end)
end)

describe("every with a tiny interval", function()
  it("fires at most every 0.1 ms, as Foundation's Timer", function()
    local n = 0
    local t = every(1e-300, function() n = n + 1 end)
    advance(0.01)
    assert.is_true(n >= 99 and n <= 101, "fired " .. n .. " times")
    t:cancel()
  end)

  it("decimal intervals add up on the clock as their decimal total (found by an acceptance probe)", function()
    advance(0.7)
    local woke
    task(function() for _ = 1, 10 do sleep(0.1) end; woke = now() end)
    advance(1)
    assert.equal(1.7, woke)
    assert.equal(1.7, now())
    local fired = 0
    every(0.1, function() fired = fired + 1 end)
    advance(1)
    assert.equal(10, fired)
    for _ = 1, 6 do advance(0.1) end
    assert.equal(16, fired)
    assert.equal(3.3, now())
  end)

  it("advance inside a timer or task it runs is an error; the clock never goes back", function()
    local problem
    after(1, function() problem = select(2, pcall(advance, 5)) end)
    advance(1)
    assert.equal(1, now())
    assert.matches("advance cannot be called inside a task, timer or callback that advance runs", problem)
    -- the outer advance ended cleanly: advance works again
    advance(2)
    assert.equal(3, now())
    -- a timer's error that leaves advance (no node to report it from) ends the advance too
    after(1, function() error("boom") end)
    assert.has_error(function() advance(1) end)
    advance(1)
    assert.equal(5, now())
    -- an advance that a timer's error ended inside a coroutine that died of it: advance still
    -- works afterwards (found by the review: its mark stayed set)
    after(1, function() error("boom") end)
    local co = coroutine.create(function() advance(2) end)
    assert.is_false((coroutine.resume(co)))
    advance(1)
    assert.equal(7, now())  -- (the coroutine's advance ended at 6, with the error)
  end)

  it("responder.reset() inside a timer: the advance running stops there, the clock stays reset (found by the review)", function()
    local ran = false
    after(5, function() responder.reset(); after(1, function() ran = true end) end)
    advance(6)
    assert.equal(0, now())
    assert.is_false(ran)
    advance(1)
    assert.is_true(ran)
    assert.equal(1, now())
  end)

  it("a repeating timer still moves on once the clock is too large for its interval to show", function()
    advance(1e300)
    local fired = 0
    local tm = every(1, function() fired = fired + 1 end)
    -- 1e300 + 1 == 1e300: each firing is due at the next number above the last
    advance(1e300 * 2 ^ -50)
    assert.is_true(fired > 0 and fired <= 8, "fired " .. fired)  -- (about 6 units in the last place)
    tm:cancel()
    advance(1e308)
    assert.error_matches(function() advance(1e308) end, "would move the clock past the largest number")
    assert.is_true(now() > 1e308 and now() < 1 / 0)  -- (the refused advance left the clock as it was)
  end)

  it("an advance too small to move the clock where it stands is an error, not a clock that stops", function()
    advance(1e18)
    local fired = false
    after(1, function() fired = true end)  -- due at the next number above 1e18
    assert.error_matches(function() advance(10) end,
      "advance(10) cannot move the clock at 1e+18: the step is below its precision there (about 222 seconds); advance by more",
      1, true)
    assert.is_false(fired)
    advance(1000)
    assert.is_true(fired)
  end)
end)
