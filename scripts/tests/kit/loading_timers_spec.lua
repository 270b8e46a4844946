-- SPEC §2.10: AsyncButton as ButtonKit, timers and free tasks, notifications with objects.
describe("AsyncButton loading", function()
  it("a press while its task runs starts nothing and returns false", function()
    local starts = 0
    local button = AsyncButton "Upload" { action = function() starts = starts + 1; sleep(5) end }
    mount(View "Root" { button })
    assert.is_false(button.isLoading)
    tap(button)
    assert.is_true(button.isLoading)
    assert.is_false(button.isEnabled)
    assert.is_false(tap(button))
    assert.equal("disabled", responder.lastTrace()[1].decision)
    assert.equal(1, starts)
    advance(5)
    assert.is_false(button.isLoading)
    assert.is_true(button.isEnabled)
    tap(button)
    assert.equal(2, starts)
  end)

  it("disabledWhenLoading = false keeps it enabled, but a second press still starts nothing", function()
    local starts = 0
    local button = AsyncButton "Go" { disabledWhenLoading = false, action = function() starts = starts + 1; sleep(1) end }
    mount(View "Root" { button })
    tap(button)
    assert.is_true(button.isEnabled)
    assert.is_false(tap(button))
    assert.equal("loading", responder.lastTrace()[1].decision)
    assert.equal(1, starts)
  end)

  it("disabled = true on an AsyncButton refuses presses", function()
    local ran = false
    local button = AsyncButton "Go" { disabled = true, action = function() ran = true end }
    mount(View "Root" { button })
    assert.is_false(tap(button))
    assert.is_false(ran)
  end)

  it("onAsyncTaskChanged(nil) comes only when no task of that button runs", function()
    local changes = {}
    local button = AsyncButton "Go" { action = function() sleep(2) end }
    local root = View "Root" { button }
    root:onAsyncTaskChanged(function(t) changes[#changes + 1] = t and "task" or "nil" end)
    mount(root)
    tap(button)
    tap(button)
    advance(1)
    assert.same({ "task" }, changes)
    advance(1)
    assert.same({ "task", "nil" }, changes)
  end)
end)

describe("timers and free tasks", function()
  it("after fires once when the clock passes its time", function()
    local fired = {}
    local t = after(2, function() fired[#fired + 1] = now() end)
    advance(1)
    assert.same({}, fired)
    advance(1)
    assert.same({ 2 }, fired)
    advance(10)
    assert.same({ 2 }, fired)
    assert.equal(1, t.fired)
  end)

  it("every repeats until cancelled", function()
    local ticks = {}
    local t = every(1, function() ticks[#ticks + 1] = now() end)
    advance(3)
    assert.same({ 1, 2, 3 }, ticks)
    assert.equal(t, t:cancel())
    assert.is_true(t.isCancelled)
    advance(3)
    assert.same({ 1, 2, 3 }, ticks)
  end)

  it("every keeps a fixed rate when its function sleeps, skipping the ticks it missed (found by an acceptance probe)", function()
    -- (each tick came an interval after the function returned: 1, 3.5, 6)
    local ticks = {}
    local t = every(1, function() ticks[#ticks + 1] = now(); sleep(1.5) end)
    advance(6)
    assert.same({ 1, 3, 5 }, ticks)
    t:cancel()
    local exact = {}
    every(0.5, function() exact[#exact + 1] = now(); sleep(0.5) end)
    advance(2)
    assert.same({ 6.5, 7, 7.5, 8 }, exact)  -- a function that ends as the next tick is due meets it
  end)

  it("advance is refused in a task's first slice too, as after a sleep (found by an acceptance probe)", function()
    local first, later
    task(function() first = { pcall(advance, 1) } end)
    task(function() sleep(0); later = { pcall(advance, 1) } end)
    advance(0)
    assert.is_false(first[1])
    assert.matches("advance cannot be called inside a task", first[2])
    assert.is_false(later[1])
    assert.equal(0, now())
  end)

  it("a cancelled after never fires", function()
    local s = spy.new(function() end)
    after(1, function() s() end):cancel()
    advance(5)
    assert.spy(s).was.called(0)
  end)

  it("cancelled timers are released at once, not kept until their due time (found by an adversary probe)", function()
    collectgarbage()
    local base = collectgarbage("count")
    for _ = 1, 20000 do after(1000, function() end):cancel() end
    collectgarbage()
    collectgarbage()
    -- (kept until due, 20,000 of them held about 10 MB)
    assert.is_true(collectgarbage("count") - base < 1024, "KB kept: " .. (collectgarbage("count") - base))
    -- the queue still works: live timers among cancelled ones fire in order
    local log = {}
    local keep = {}
    for i = 1, 200 do
      local t = after(i, function() log[#log + 1] = i end)
      if i % 3 ~= 0 then t:cancel() else keep[#keep + 1] = i end
    end
    advance(300)
    assert.same(keep, log)
  end)

  it("a task that calls responder.reset() ends cancelled at its next sleep (found by an adversary probe)", function()
    local log = {}
    local t = task(function()
      sleep(1)
      responder.reset()
      log[#log + 1] = "after reset " .. now()
      sleep(1)
      log[#log + 1] = "never"
    end)
    advance(5)
    assert.same({ "after reset 0" }, log)
    assert.equal("cancelled", t.state)
    assert.is_true(t.isCancelled)
    assert.equal(0, now())
    -- the new world's clock and tasks work
    local u = task(function() sleep(1); log[#log + 1] = "fresh " .. now() end)
    advance(1)
    assert.equal("finished", u.state)
    assert.same({ "after reset 0", "fresh 1" }, log)
  end)

  it("task runs a free task with the AsyncButton callbacks on its node", function()
    local log = {}
    local root = View "Root"
    root:onAsyncTaskStarted(function() log[#log + 1] = "started" end)
    root:onAsyncTaskEnded(function(t) log[#log + 1] = "ended " .. t.state end)
    mount(root)
    local t = task(function() sleep(1); log[#log + 1] = "work" end, { node = root })
    assert.equal("sleeping", t.state)
    advance(1)
    assert.same({ "started", "work", "ended finished" }, log)
  end)

  it("a free task can be cancelled while it sleeps", function()
    local t = task(function() sleep(10) end)
    t:cancel()
    assert.equal("cancelled", t.state)
  end)

  it("a free task's error is reported from its node", function()
    local root = View "Root"
    local caught
    root:handleError(LuaError, function(e) caught = e.message end)
    mount(root)
    task(function() sleep(1); error("boom") end, { node = root })
    advance(1)
    assert.matches("boom", caught)
  end)

  it("checks its arguments", function()
    assert.error_matches(function() after(-1, function() end) end, "bad argument #1 to 'after'")
    assert.error_matches(function() every(0, function() end) end, "bad argument #1 to 'every' %(seconds %(positive finite number%) expected")
    assert.error_matches(function() after(1, 5) end, "bad argument #2 to 'after' %(function expected, got number%)")
    assert.error_matches(function() task(function() end, { nod = 1 }) end, "bad option 'nod' to 'task'")
  end)
end)

describe("notifications with objects", function()
  it("a receiver with an object gets only posts with that object; handlers get the note", function()
    local doc1, doc2 = {}, {}
    local all, only1 = {}, {}
    local root = View "Root"
    root:onReceive("saved", function(payload, note) all[#all + 1] = note end)
    root:onReceive("saved", function(payload, note) only1[#only1 + 1] = payload end, { object = doc1 })
    mount(root)
    assert.equal(2, post("saved", "a", { object = doc1 }))
    assert.equal(1, post("saved", "b", { object = doc2 }))
    assert.equal(1, post("saved", "c"))
    assert.same({ "a" }, only1)
    assert.equal(3, #all)
    assert.equal("saved", all[1].name)
    assert.equal(doc1, all[1].object)
    assert.equal("a", all[1].payload)
    assert.is_nil(all[3].object)
  end)

  it("onReceive returns a handle whose cancel stops delivery", function()
    local s = spy.new(function() end)
    local root = View "Root"
    local h = root:onReceive("x", function() s() end)
    mount(root)
    post("x")
    h:cancel()
    assert.is_true(h.isCancelled)
    post("x")
    assert.spy(s).was.called(1)
  end)

  it("cancelled receivers of many names are released (found by an adversary probe)", function()
    local root = View "Root"
    mount(root)
    collectgarbage()
    local base = collectgarbage("count")
    for i = 1, 20000 do root:onReceive("n" .. i, function() end):cancel() end
    collectgarbage()
    collectgarbage()
    assert.is_true(collectgarbage("count") - base < 1024, "KB kept: " .. (collectgarbage("count") - base))
    -- a name whose receivers were all cancelled takes new ones
    local s = spy.new(function() end)
    local h1 = root:onReceive("x", function() end)
    h1:cancel()
    root:onReceive("x", function() s() end)
    assert.equal(1, post("x"))
    assert.spy(s).was.called(1)
  end)

  it("observe fires only while mounted, and its handle cancels", function()
    local seen = {}
    local n = View "N" { count = 0 }
    local h = n:observe("count", function(new) seen[#seen + 1] = new end)
    n.props.count = 1
    mount(View "Root" { n })
    n.props.count = 2
    h:cancel()
    n.props.count = 3
    assert.same({ 2 }, seen)
    assert.equal(3, n.props.count)
  end)
end)
