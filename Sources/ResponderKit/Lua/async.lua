-- Async actions on a virtual clock ---------------------------------------------------------
local now, seq, nextId = 0, 0, 0
local queue, live, threads = {}, {}, {}
local data = setmetatable({}, { __mode = "k" })
local SLEEP, CANCEL = {}, {}
local TaskMT = { __name = "responder.task", __metatable = "locked" }
local function checkTask(t, fname)
  local d = data[t]
  if not d then argerr(0, fname, "task", t, 1) end
  return d
end

local function notify(node, kind, arg)
  local n = node
  while n do
    local k = kitOf(n)
    local fn = k and k.tasks and k.tasks[kind]
    if fn then invoke(n, fn, arg); return end
    n = n.parent
  end
end
local function unschedule(t)
  for i = 1, #queue do
    if queue[i].task == t then tremove(queue, i); return end
  end
end
local function finish(t, ok, err, traceback)
  local d = data[t]
  threads[d.co] = nil
  d.co, live[t] = nil, nil
  if ok then
    d.state = "finished"
  elseif isCancellation(err) then
    d.state = "cancelled"
  else
    d.state, d.error = "failed", err
    reportFrom(d.node, err, traceback)
  end
  notify(d.node, "ended", t)
  notify(d.node, "changed", nil)
end
local function step(t, ...)
  local d = data[t]
  d.state = "running"
  local tag, a, b = resume(d.co, ...)
  if tag == "yield" then
    local seconds = (a == SLEEP and b) or 0
    d.state = "sleeping"
    seq = seq + 1
    queue[#queue + 1] = { due = now + seconds, seq = seq, task = t }
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
  if key == "cancel" then return cancel
  elseif key == "isCancelled" then return d.cancelled
  elseif key == "node" or key == "id" or key == "state" or key == "error" then return d[key]
  elseif key == "title" then return d.node.props.title
  end
  return nil
end
TaskMT.__newindex = function(t, key)
  error(fmt("cannot assign field '%s' of a task", tostring(key)), 2)
end
TaskMT.__tostring = function(t)
  local d = data[t]
  return fmt("Task#%d(%s, %s)", d.id, tostring(d.node), d.state)
end

local function start(node, action)
  nextId = nextId + 1
  local t = setmetatable({}, TaskMT)
  local d = { id = nextId, node = node, state = "running", cancelled = false }
  d.co = cocreate(action)
  data[t], live[t], threads[d.co] = d, true, t
  notify(node, "started", t)
  notify(node, "changed", t)
  if d.co then step(t, t) end
end

local function sleep(seconds)
  local t = threads[corunning()]
  if not t then error("sleep called outside a task (sleep only works inside an AsyncButton action)", 2) end
  if type(seconds) ~= "number" or seconds < 0 or seconds ~= seconds then
    argerr(1, "sleep", "seconds (non-negative number)", seconds)
  end
  if data[t].cancelled then error(CancellationError(), 0) end
  if coyield(SLEEP, seconds) == CANCEL then error(CancellationError(), 0) end
end
local function advance(seconds)
  if type(seconds) ~= "number" or seconds < 0 or seconds ~= seconds then
    argerr(1, "advance", "seconds (non-negative number)", seconds)
  end
  local target = now + seconds
  while true do
    local best
    for i = 1, #queue do
      local e = queue[i]
      if e.due <= target and (best == nil or e.due < queue[best].due
          or (e.due == queue[best].due and e.seq < queue[best].seq)) then
        best = i
      end
    end
    if not best then break end
    local e = tremove(queue, best)
    if e.due > now then now = e.due end
    step(e.task)
  end
  now = target
  return now
end
local function clockNow() return now end
local function reset()
  now, seq = 0, 0
  queue, live, threads = {}, {}, {}
end

-- The script's own coroutines resume through K.resume too, so that bindings called inside them
-- work on the coroutine's stack.
local function resumed(tag, ...)
  if tag == "error" then return false, (...) end
  return true, ...
end
coroutine.resume = function(co, ...)
  if type(co) ~= "thread" then argerr(1, "resume", "coroutine", co) end
  return resumed(resume(co, ...))
end
local function wrapped(tag, ...)
  if tag == "error" then
    local err = ...
    error(err, 2)
  end
  return ...
end
coroutine.wrap = function(f)
  if type(f) ~= "function" then argerr(1, "wrap", "function", f) end
  local co = cocreate(f)
  return function(...) return wrapped(resume(co, ...)) end
end

local function AsyncButton(title)
  if type(title) ~= "string" then argerr(1, "AsyncButton", "title (string)", title) end
  return function(t)
    if type(t) ~= "table" then argerr(1, "AsyncButton \"" .. title .. "\"", "table", t) end
    local action = t.action
    if not callable(action) then
      error(fmt("bad field 'action' in AsyncButton (function expected, got %s)", kindName(action)), 2)
    end
    local node = View "AsyncButton"
    node.props.title = title
    local rest = {}
    for k, v in next, t do if k ~= "action" then rest[k] = v end end
    node(rest)
    node:onTapGesture(function() start(node, action) end)
    return node
  end
end

local function taskHandler(kind, fname)
  return function(node, fn)
    checkNode(node, fname); checkFn(1, fname, fn)
    list(kit(node), "tasks")[kind] = fn
    return node
  end
end

return {
  functions = {
    Preference = Preference, post = post, AsyncButton = AsyncButton,
    sleep = sleep, advance = advance, now = clockNow,
  },
  methods = {
    environment = environment, env = env,
    preference = preference, preferenceValue = preferenceValue, onPreferenceChange = onPreferenceChange,
    onReceive = onReceive, observe = observe, onAppear = onAppear, onDisappear = onDisappear,
    onAsyncTaskStarted = taskHandler("started", "onAsyncTaskStarted"),
    onAsyncTaskEnded = taskHandler("ended", "onAsyncTaskEnded"),
    onAsyncTaskChanged = taskHandler("changed", "onAsyncTaskChanged"),
  },
  hooks = { appear = appearHook, disappear = disappearHook, structure = structureHook, reset = reset },
}
