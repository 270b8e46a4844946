-- Part of the kit prelude, run after environment.lua (see EnvironmentPrelude.swift): returns
-- the kit's functions, methods and hooks.
local K, M, S = ...
local isNode, kitOf, invoke, resume = K.isNode, K.kit, K.invoke, K.resume
local reportFrom, isCancellation, kindName, raise = K.report, K.isCancellation, K.kindName, K.raise
local type, error, next, setmetatable, rawget, tostring =
      type, error, next, setmetatable, rawget, tostring
local cocreate, coyield, corunning, coisyieldable = coroutine.create, coroutine.yield, coroutine.running, coroutine.isyieldable
local costatus, coclose = coroutine.status, coroutine.close
local CancellationError = M.CancellationError
local fmt = string.format
local argerr, first, callable, checkNode, checkFn, kit =
      S.argerr, S.first, S.callable, S.checkNode, S.checkFn, S.kit
local list, environment, env, Preference, preference =
      S.list, S.environment, S.env, S.Preference, S.preference
local preferenceValue, onPreferenceChange, post, onReceive, observe =
      S.preferenceValue, S.onPreferenceChange, S.post, S.onReceive, S.observe
local onAppear, onDisappear, appearHook, disappearHook, structureHook =
      S.onAppear, S.onDisappear, S.appearHook, S.disappearHook, S.structureHook
local setLoading, makeHandle, entryHandle, eachLive = S.setLoading, S.makeHandle, S.entryHandle, S.eachLive
local asyncControl = K.asyncButton

-- Async actions on a virtual clock ---------------------------------------------------------
local now, seq, nextId = 0, 0, 0
-- Instants are kept on a grid of nanoseconds: a sum of decimal intervals lands on the instant of
-- the decimal total (0.7 + ten sleeps of 0.1 is 1.7, as advance(0.7) then advance(1) is), as on
-- a clock that counts ticks; floating-point sums drifted by an ulp and a task due at 1.7 missed
-- advance to 1.7 (found by an acceptance probe). Beyond 2^53 ns (about 104 days) the instant is
-- kept as it is.
local function onGrid(t)
  if math.type(t) == "integer" then return t end
  local ns = t * 1e9
  if not (ns < 2 ^ 53 and ns > -2 ^ 53) then return t end
  return math.floor(ns + 0.5) / 1e9
end
-- The instant `seconds` from now. Beyond the grid, once the clock is so large that
-- `now + seconds == now`, a positive interval still moves it, to the next number above: a timer
-- repeating every `seconds` was due again at the same instant, and one advance never ended.
local function later(seconds)
  if seconds > 0 and now + seconds == now then
    return now + math.abs(now) * 2 ^ -52  -- (at least one unit in the last place of now)
  end
  return onGrid(now + seconds)
end
-- advance() runs due tasks and timers: one of them calling advance() again would move the clock
-- under the outer call (which then set it back). `advancing` is the thread running advance; a
-- to-be-closed variable clears it, also when an error leaves advance, except in a coroutine that
-- dies of that error (its variables close only when it is closed): a dead thread's mark is stale.
local advancing = nil
-- How many times reset() ran: an advance that a reset interrupted stops there.
local resets = 0
local advancingEnds = setmetatable({}, { __close = function() advancing = nil end })
local queue, live, threads = {}, {}, {}
-- The coroutines of tasks a reset() ended while one of them was running: its next sleep raises
-- a CancellationError, as a cancelled task's does (it said "sleep called outside a task": found
-- by an adversary probe).
local orphans = setmetatable({}, { __mode = "k" })
local data = setmetatable({}, { __mode = "k" })
local SLEEP, CANCEL = {}, {}
local TaskMT = { __name = "responder.task", __metatable = "locked" }
local function checkTask(t, fname)
  local d = data[t]
  if not d then argerr(0, fname, "task", t, 1) end
  return d
end

-- Task callbacks reach every ancestor that registered them, nearest first (ButtonKit).
local function notify(node, kind, arg)
  if not node then return end
  local n = node
  while n do
    local k = kitOf(n)
    local l = k and k.tasks and k.tasks[kind]
    if l then
      -- every handler the node registered, in order (a snapshot: one may register another;
      -- one a handle cancelled before its turn does not run)
      eachLive(l, n, invoke, arg)
    end
    n = n.parent
  end
end
-- How many tasks of each node run (AsyncButton's isLoading).
local running = setmetatable({}, { __mode = "k" })
-- The queue is a binary min-heap on (due, seq): scheduling and running a task cost O(log n),
-- so advancing through n tasks is O(n log n). Unscheduling marks the entry dead instead.
local function before(a, b) return a.due < b.due or (a.due == b.due and a.seq < b.seq) end
local function schedule(e)
  local i = #queue + 1
  queue[i] = e
  while i > 1 do
    local p = i // 2
    if not before(queue[i], queue[p]) then break end
    queue[i], queue[p] = queue[p], queue[i]
    i = p
  end
end
local function popDue()
  local n = #queue
  local top = queue[1]
  queue[1] = queue[n]
  queue[n] = nil
  n = n - 1
  local i = 1
  while true do
    local l, m = 2 * i, i
    if l <= n and before(queue[l], queue[m]) then m = l end
    if l + 1 <= n and before(queue[l + 1], queue[m]) then m = l + 1 end
    if m == i then break end
    queue[i], queue[m] = queue[m], queue[i]
    i = m
  end
  return top
end
-- Dead entries left in the queue; when they are most of it, the queue is rebuilt without them
-- (a script that starts and cancels timers in a loop kept every one until its due time: 100,000
-- cancelled `after(1000, f)` held 50 MB; found by an adversary probe).
local deadEntries = 0
local function unschedule(t)
  local d = data[t]
  if d and d.entry then
    d.entry.dead, d.entry.task, d.entry = true, nil, nil
    deadEntries = deadEntries + 1
    if deadEntries > 64 and deadEntries * 2 > #queue then
      local kept = {}
      for i = 1, #queue do
        local e = queue[i]
        if not e.dead then kept[#kept + 1] = e end
      end
      -- (an array sorted by `before` is a min-heap)
      table.sort(kept, before)
      queue, deadEntries = kept, 0
    end
  end
end
-- A task's error: reported from `node` (or the mounted root); with neither, a free task's error
-- reaches the script's call.
local function reportTaskError(node, err, traceback)
  local from = node or M.mounted()
  if from then reportFrom(from, err, traceback) else error(err, 0) end
end
local function finish(t, ok, err, traceback, unwinding)
  local d = data[t]
  local co = d.co
  if co then threads[co] = nil end
  d.co, live[t] = nil, nil
  -- A task ended by a cancellation or an error left its pending to-be-closed variables open (Lua
  -- closes them in a coroutine only through coroutine.close): close them now, before the end is
  -- reported, as a function's own error would have. An error of a closing method replaces the
  -- task's (a cancelled task then failed), as it does in a function. (Not when unwinding: no more script code runs then.)
  if not ok and not unwinding and co and costatus(co) == "dead" then
    local closed, closeErr = coclose(co)
    if not closed and closeErr ~= err then err, traceback = closeErr, nil end
  end
  if ok then
    d.state = "finished"
  elseif isCancellation(err) then
    d.state = "cancelled"
  else
    d.state, d.error = "failed", err
    -- (when unwinding, a strict violation or a limit is on its way to the script's call: it is
    -- not reported here)
    if not unwinding then reportTaskError(d.node, err, traceback) end
  end
  local node = d.node
  if node then
    local left = (running[node] or 1) - 1
    running[node] = left > 0 and left or nil
    -- (a task a strict violation or a limit unwound ends without callbacks: no more of the
    -- script's code runs for a call that was aborted)
    if not unwinding then
      notify(node, "ended", t)
      if not running[node] then notify(node, "changed", nil) end
    end
  end
  if d.onEnd and not unwinding then d.onEnd(t) end
end
-- Tasks whose coroutine died while a strict violation or a limit unwound through them from
-- inside an action (when no Lua code could run to end them): ended as failed, without callbacks,
-- as soon as the kit looks at tasks again.
-- `stepping` holds the tasks whose resume has not returned to `step` (the one running now, and
-- those an abort unwound): only those are looked at.
local stepping = {}
local function reconcile()
  for t in next, stepping do
    local d = data[t]
    if not d or not d.co then
      stepping[t] = nil
    elseif costatus(d.co) == "dead" then
      stepping[t] = nil
      finish(t, false, d.error, nil, true)
    end
  end
end
local function step(t, ...)
  local d = data[t]
  if costatus(d.co) == "dead" then
    -- the script closed the task's coroutine (coroutine.close): the task ends as cancelled
    d.cancelled = true
    finish(t, false, CancellationError())
    return
  end
  d.state = "running"
  stepping[t] = true
  local resumed, tag, a, b = pcall(resume, d.co, ...)
  stepping[t] = nil
  if d.co == nil then
    -- a responder.reset() inside the task ended it with the world it ran in (cancelled); what
    -- the task raised after that still reaches the script, as a free task's error does
    if not resumed then error(tag, 0) end
    if tag == "error" and not isCancellation(a) then reportTaskError(nil, a, b) end
    return
  end
  if not resumed then
    -- a strict violation or a limit unwound through the task (K.resume raised it): the task
    -- has ended, failed (so that its button is not left loading), and the error goes on
    finish(t, false, tag, nil, true)
    error(tag, 0)
  end
  if tag == "yield" then
    local seconds = (a == SLEEP and b) or 0
    d.state = "sleeping"
    seq = seq + 1
    d.entry = { due = later(seconds), seq = seq, task = t }
    schedule(d.entry)
  elseif tag == "ok" then
    finish(t, true)
  else
    finish(t, false, a, b)
  end
end
local function cancel(t)
  local d = checkTask(t, "cancel")
  if d.co == nil or d.cancelled then return t end
  d.cancelled = true
  if d.state == "sleeping" then
    unschedule(t)
    step(t, CANCEL)
  end
  return t
end
TaskMT.__index = function(t, key)
  local d = data[t]
  if d.co and costatus(d.co) == "dead" then reconcile() end
  if key == "cancel" then return cancel
  elseif key == "isCancelled" then return d.cancelled
  elseif key == "node" or key == "id" or key == "state" or key == "error" then return d[key]
  elseif key == "title" then return d.node and d.node.props.title
  end
  return nil
end
TaskMT.__newindex = function(t, key)
  raise(fmt("cannot assign field '%s' of a task", tostring(key)))
end
TaskMT.__tostring = function(t)
  local d = data[t]
  if d.co and costatus(d.co) == "dead" then reconcile() end
  if d.node == nil then return fmt("Task#%d(%s)", d.id, d.state) end  -- a free task without a node
  return fmt("Task#%d(%s, %s)", d.id, tostring(d.node), d.state)
end

local function start(node, action, onEnd, ofButton)
  nextId = nextId + 1
  local t = setmetatable({}, TaskMT)
  local d = { id = nextId, node = node, state = "running", cancelled = false, onEnd = onEnd, ofButton = ofButton }
  d.co = cocreate(function(...) return action(...) end)
  data[t], live[t], threads[d.co] = d, true, t
  if node then running[node] = (running[node] or 0) + 1 end
  notify(node, "started", t)
  notify(node, "changed", t)
  if d.co then step(t, t) end
  return t
end

local function sleep(...)
  local seconds = ...
  local co, isMain = corunning()
  local t = threads[co]
  if not t then
    if orphans[co] then error(CancellationError(), 0) end
    if not isMain and next(stepping) ~= nil then
      -- a coroutine the task's function made: yielding would resume the coroutine's caller,
      -- not suspend the task (found by an acceptance probe: it said "outside a task")
      raise("sleep called in a coroutine made inside a task: only the task's own function can sleep "
        .. "(call sleep there, or start another task with task(fn))")
    end
    raise("sleep called outside a task (sleep only works inside an AsyncButton action, task or timer)")
  end
  if type(seconds) ~= "number" or seconds < 0 or seconds ~= seconds then
    argerr(1, "sleep", "seconds (non-negative number)", first(...))
  end
  if data[t].cancelled then error(CancellationError(), 0) end
  if not coisyieldable() then
    -- inside a responder or callback that the engine called from the task: Lua cannot suspend
    -- the task across that call
    raise("sleep cannot suspend the task here: it was called inside a function Lua cannot suspend "
      .. "across (a responder or callback the engine ran, or a C function such as table.sort's comparator); "
      .. "sleep in the task's own function, or start another task with task(fn)")
  end
  if coyield(SLEEP, seconds) == CANCEL then error(CancellationError(), 0) end
end
local function advance(...)
  local seconds = ...
  -- (math.huge would leave the clock at infinity, where no interval moves it any more)
  if type(seconds) ~= "number" or seconds < 0 or seconds ~= seconds or seconds == 1 / 0 then
    argerr(1, "advance", "seconds (non-negative finite number)", first(...))
  end
  if now + seconds == 1 / 0 then
    raise(fmt("advance(%s) would move the clock past the largest number (it is at %s)", tostring(seconds),
      tostring(now)))
  end
  -- a step below the clock's precision where it stands would leave it where it is, and what is
  -- due after now (a timer at the next number above) never came (found by an adversary probe)
  if seconds > 0 and now + seconds == now then
    raise(fmt("advance(%s) cannot move the clock at %s: the step is below its precision there "
      .. "(about %s seconds); advance by more", tostring(seconds), tostring(now), fmt("%.3g", math.abs(now) * 2 ^ -52)))
  end
  -- (also in a task's first slice, which runs when the task starts, before any advance: the
  -- refusal depended on whether the task had slept yet; found by an acceptance probe)
  if (advancing and costatus(advancing) ~= "dead") or next(stepping) ~= nil then
    raise("advance cannot be called inside a task, timer or callback that advance runs "
      .. "(sleep inside a task waits on the clock)")
  end
  advancing = corunning()
  local _ <close> = advancingEnds
  reconcile()
  local target = onGrid(now + seconds)
  local generation = resets
  while queue[1] and queue[1].due <= target do
    local e = popDue()
    if e.dead then
      deadEntries = deadEntries - 1
    else
      data[e.task].entry = nil
      if e.due > now then now = e.due end
      step(e.task)
      -- responder.reset() inside what ran: the clock and queue are the new world's, left as reset
      -- made them (setting the old target would move the new clock; found by the review)
      if resets ~= generation then return now end
    end
  end
  now = target
  return now
end
local function clockNow() return now end

-- Timers and free tasks (SPEC §2.10) ------------------------------------------------------------
local TimerMT = { __name = "responder.timer", __metatable = "locked" }
local timerData = setmetatable({}, { __mode = "k" })
local function cancelTimer(tm)
  local d = timerData[tm]
  if not d then argerr(0, "cancel", "timer", tm) end
  if not d.cancelled then
    d.cancelled = true
    if d.task and live[d.task] then cancel(d.task) end
  end
  return tm
end
TimerMT.__index = function(tm, key)
  local d = timerData[tm]
  if key == "cancel" then return cancelTimer
  elseif key == "isCancelled" then return d.cancelled
  elseif key == "fired" then return d.fired
  elseif key == "interval" then return d.interval
  end
  return nil
end
TimerMT.__newindex = function() raise("a timer is read-only") end
TimerMT.__tostring = function(tm)
  local d = timerData[tm]
  return fmt("Timer(%s %gs%s)", d.repeats and "every" or "after", d.interval, d.cancelled and ", cancelled" or "")
end
local function checkSeconds(fname, seconds, positive)
  if type(seconds) ~= "number" or seconds ~= seconds or seconds < 0 or (positive and seconds <= 0)
      or seconds == 1 / 0 then
    argerr(1, fname, positive and "seconds (positive finite number)" or "seconds (non-negative finite number)",
      seconds)
  end
end
-- A timer is a free task that sleeps, then calls fn (each interval for `every`); cancelling
-- the timer cancels its task. fn's errors are reported as a task's are (LuaError from its node,
-- or printed when it has none).
local function timer(fname, seconds, fn, repeats)
  checkSeconds(fname, seconds, repeats)
  checkFn(2, fname, fn)
  -- as Foundation's Timer: a repeating interval below 0.1 ms is 0.1 ms (`every(1e-300, f)` made
  -- `advance(1)` call f without end)
  if repeats and seconds < 1e-4 then seconds = 1e-4 end
  local tm = setmetatable({}, TimerMT)
  local d = { interval = seconds, repeats = repeats, cancelled = false, fired = 0 }
  timerData[tm] = d
  -- Fixed rate, as Foundation's Timer: each tick is due an interval after the one before was due,
  -- not after fn returned; ticks missed while fn slept are skipped (every(1) with fn sleeping
  -- 1.5 s ticks at 1, 3, 5; it drifted to 1, 3.5, 6: found by an acceptance probe).
  local due = later(seconds)
  d.task = start(nil, function()
    repeat
      sleep(due > now and due - now or 0)
      if d.cancelled then return end
      d.fired = d.fired + 1
      fn(tm)
      if repeats then
        local nextDue = onGrid(due + seconds)
        if nextDue < now then nextDue = onGrid(due + (math.floor((now - due) / seconds) + 1) * seconds) end
        -- (beyond the grid an interval may no longer move the instant: then one from now)
        if nextDue <= due then nextDue = later(seconds) end
        due = nextDue
      end
    until not repeats or d.cancelled
  end)
  return tm
end
local function after(seconds, fn) return timer("after", seconds, fn, false) end
local function every(seconds, fn) return timer("every", seconds, fn, true) end
-- task(fn [, { node = n }]): a task without a button; callbacks and errors from `node`.
local function freeTask(fn, opts)
  checkFn(1, "task", fn)
  local node
  if opts ~= nil then
    if type(opts) ~= "table" then argerr(2, "task", "options table", opts) end
    for k in next, opts do
      if k ~= "node" then raise(fmt("bad option '%s' to 'task' (the only option is 'node')", tostring(k))) end
    end
    node = rawget(opts, "node")
    if node ~= nil and not isNode(node) then raise(fmt("bad option 'node' to 'task' (node expected, got %s)", kindName(node))) end
    if node ~= nil then kit(node).freeTasks = true end  -- (kit data: the disappear hook runs for the node)
  end
  return start(node, fn)
end

-- The running tasks, oldest first (for `explore`, which may cancel them).
local function liveTasks()
  reconcile()
  local tasks = {}
  for t in next, live do tasks[#tasks + 1] = t end
  table.sort(tasks, function(a, b) return data[a].id < data[b].id end)
  return tasks
end
local function reset()
  -- tasks that were still running end with the world they ran in: cancelled, without callbacks
  for t in next, live do
    local d = data[t]
    if d then
      if d.co then orphans[d.co] = true end
      d.state, d.co, d.cancelled = "cancelled", nil, true
    end
  end
  -- (an advance running on keeps its mark: advance inside what it runs stays refused)
  -- task numbers start again, as the clock does: a fresh world's first task is Task#1
  now, seq, resets, nextId = 0, 0, resets + 1, 0
  queue, live, threads, stepping, deadEntries = {}, {}, {}, {}, 0
  running = setmetatable({}, { __mode = "k" })
end

-- The script's own coroutines resume through K.resume too, so that bindings called inside them
-- work on the coroutine's stack.
local function resumed(tag, ...)
  if tag == "error" then return false, (...) end
  return true, ...
end
-- Lua's own argument error of a replaced coroutine function: "got no value" when the argument
-- is missing, the type name (or __name) otherwise.
local function coArgError(fname, expected, ...)
  local got = "no value"
  if select("#", ...) > 0 then
    local v = ...
    local mt = getmetatable(v)
    got = type(mt) == "table" and type(rawget(mt, "__name")) == "string" and rawget(mt, "__name") or type(v)
  end
  raise(("bad argument #1 to '%s' (%s expected, got %s)"):format(fname, expected, got))
end
coroutine.resume = function(...)
  if type((...)) ~= "thread" then coArgError("resume", "thread", ...) end
  return resumed(resume(...))
end
local function wrapped(co, wasDead, tag, ...)
  if tag == "error" then
    -- as Lua's own wrap: a coroutine that died of the error has its to-be-closed variables
    -- closed (an error one of them raises replaces the original); one that was dead already
    -- keeps resume's "cannot resume dead coroutine". A string gets the caller's position.
    local err = ...
    -- (a running or normal coroutine refused the resume: it is not closed)
    if not wasDead and costatus(co) == "dead" then
      local _, closing = coclose(co)
      err = closing
    end
    error(err, 2)
  end
  return ...
end
coroutine.wrap = function(...)
  local f = ...
  if type(f) ~= "function" then coArgError("wrap", "function", ...) end
  local co = cocreate(f)
  return function(...) return wrapped(co, costatus(co) == "dead", resume(co, ...)) end
end

-- What an AsyncButton's `touchUpInside` entry runs: its action, as a task of the button.
local function startPressed(node, action)
  reconcile()
  if not running[node] then start(node, action, nil, true) end
end

-- A node that leaves the mounted tree (not moved within it) cancels its tasks: an AsyncButton's,
-- as ButtonKit's button does when it disappears, and those `task(fn, { node = n })` started on
-- it, as SwiftUI's `.task` is cancelled when its view disappears (they ran on, and the ancestors
-- that heard them start never heard them end: found by an acceptance probe). Each task wakes
-- with a CancellationError while the node is still in place, so its ended and changed callbacks
-- reach the ancestors it had.
local function disappear(node, moving)
  disappearHook(node, moving)
  if moving or not running[node] then return end
  local mine = {}
  for t in next, live do
    local d = data[t]
    if d and d.node == node then mine[#mine + 1] = t end
  end
  table.sort(mine, function(a, b) return data[a].id < data[b].id end)
  for i = 1, #mine do cancel(mine[i]) end
end

local function AsyncButton(title)
  if type(title) ~= "string" then argerr(1, "AsyncButton", "title (string)", title) end
  return function(t)
    if type(t) ~= "table" then argerr(1, "AsyncButton \"" .. title .. "\"", "table", t) end
    local action = t.action
    if not callable(action) then
      raise(fmt("bad field 'action' in AsyncButton (function expected, got %s)", kindName(action)))
    end
    local whenLoading = t.disabledWhenLoading
    if whenLoading ~= nil and type(whenLoading) ~= "boolean" then
      raise(fmt("bad field 'disabledWhenLoading' in AsyncButton (boolean expected, got %s)", kindName(whenLoading)))
    end
    -- a control like Button: its action is the `touchUpInside` entry "action" of its dispatch
    -- table (tap, sendActions, addAction and eventHandlers as on a Button); running that entry
    -- starts the action as a task of the button, unless one runs (a press while loading is
    -- refused before it runs, also with disabledWhenLoading = false)
    local node = asyncControl(title, t, startPressed)
    kit(node).asyncButton = true  -- (kit data: the disappear hook runs for the button)
    setLoading(node, function() reconcile() return running[node] ~= nil, whenLoading ~= false end)
    return node
  end
end

local function taskHandler(kind, fname)
  return function(node, fn)
    checkNode(node, fname); checkFn(1, fname, fn)
    local l = list(list(kit(node), "tasks"), kind)
    l[#l + 1] = fn
    return entryHandle(fname, node, l, fn)
  end
end

return {
  functions = {
    Preference = Preference, post = post, AsyncButton = AsyncButton,
    sleep = sleep, advance = advance, now = clockNow,
    after = after, every = every, task = freeTask,
  },
  methods = {
    environment = environment, env = env,
    preference = preference, preferenceValue = preferenceValue, onPreferenceChange = onPreferenceChange,
    onReceive = onReceive, observe = observe, onAppear = onAppear, onDisappear = onDisappear,
    onAsyncTaskStarted = taskHandler("started", "onAsyncTaskStarted"),
    onAsyncTaskEnded = taskHandler("ended", "onAsyncTaskEnded"),
    onAsyncTaskChanged = taskHandler("changed", "onAsyncTaskChanged"),
  },
  makeHandle = makeHandle, makeNodeHandle = S.nodeHandle, nodeHandleMT = S.NodeHandleMT,
  hooks = { appear = appearHook, disappear = disappear, structure = structureHook, reset = reset,
            liveTasks = liveTasks },
}
