-- ---------------------------------------------------------------- describe / it

local function new_suite(name, parent)
  return { name = name, parent = parent, children = {}, before_each = {}, after_each = {},
           setup = {}, teardown = {}, strict = {} }
end

local root = new_suite(nil, nil)
local current = root
local running = nil   -- the test being run (for finally / pending inside it)
local collecting = true

local function names_of(s)
  local t = {}
  while s and s.name do insert(t, 1, s.name); s = s.parent end
  return t
end

local function in_collection(fname)
  if not collecting then
    error(host.where() .. ": " .. fname .. " cannot be called while tests run (only in a describe block or at file level)", 0)
  end
end

local function describe(name, fn)
  in_collection("describe")
  local s = new_suite(tostring(name), current)
  s.location = host.where()
  current.children[#current.children + 1] = { kind = "suite", suite = s }
  if type(fn) ~= "function" then
    current.children[#current.children + 1] = { kind = "error", suite = s, location = s.location,
      message = "describe block '" .. tostring(name) .. "' has no function" }
    return
  end
  local saved = current
  current = s
  local ok, err = xpcall(fn, function(e) return { e = e, tb = clean_traceback(host.traceback()) } end)
  current = saved
  if not ok then
    if host.limit() then error(err.e, 0) end
    -- as busted: a describe whose body failed runs none of its tests, only reports the error
    s.children, s.setup, s.teardown = {}, {}, {}
    current.children[#current.children + 1] = { kind = "error", suite = s, err = err.e, tb = err.tb, location = s.location }
  end
end

local function it(name, fn)
  if running then error(host.where() .. ": 'it' cannot be nested inside another 'it'", 0) end
  in_collection("it")
  local loc = host.where()
  if fn == nil then
    current.children[#current.children + 1] = { kind = "pending", name = tostring(name), location = loc, suite = current }
  else
    current.children[#current.children + 1] = { kind = "test", name = tostring(name), fn = fn, location = loc, suite = current }
  end
end

local function pending(name, fn)
  if running then
    error(setmetatable({ message = tostring(name or "pending") }, PendingMT), 0)
  end
  in_collection("pending")
  current.children[#current.children + 1] = { kind = "pending", name = tostring(name), location = host.where(), suite = current }
end

local function hook(list, strict)
  return function(fn)
    in_collection("hook")
    if type(fn) ~= "function" then error(host.where() .. ": a hook expects a function", 0) end
    local l = current[list]
    l[#l + 1] = fn
    if strict then current.strict[fn] = true end
  end
end

local function finally(fn)
  if not running then error(host.where() .. ": finally can only be called inside an 'it'", 0) end
  running.finally[#running.finally + 1] = fn
end

-- ---------------------------------------------------------------- running

local filter = host.filter

local function matches(full)
  if filter == nil or filter == "" then return true end
  local ok, r = pcall(sfind, full, filter)
  if ok then return r ~= nil end
  return sfind(full, filter, 1, true) ~= nil
end

local function full_name(suite, name)
  local parts = names_of(suite)
  if name then parts[#parts + 1] = name end
  return concat(parts, " ")
end

local function handler(e)
  if is_assertion(e) or getmetatable(e) == PendingMT then return { e = e } end
  return { e = e, tb = clean_traceback(host.traceback()) }
end

local function classify(wrapped, fallback_location)
  local e = wrapped.e
  if is_assertion(e) then
    return "failed", { message = e.message, location = e.location or fallback_location, diff = e.diff, trace = e.trace }
  end
  if getmetatable(e) == PendingMT then
    return "skipped", { message = e.message, location = fallback_location }
  end
  local text
  if type(e) == "string" then text = e else
    local ok, s = pcall(tostring, e)
    text = ok and s or ("(error object is a " .. type(e) .. " value)")
  end
  local loc = type(text) == "string" and text:match("^(.-:%d+): ") or nil
  local trace = nil
  local ok, t = pcall(function() return type(e) ~= "string" and e.trace or nil end)
  if ok and t ~= nil then trace = tostring(t) end
  return "error", { message = text, location = loc or fallback_location, traceback = wrapped.tb, trace = trace }
end

local function call(fn, ...)
  local ok, err = xpcall(fn, handler, ...)
  if not ok and host.limit() then error(err.e, 0) end
  return ok, err
end

-- `name` is the it's name; `suffix` marks a suite-level record ("before_each", "setup", …),
-- named like busted does: "<describe path> <suffix>".
local function emit(suite, name, status, info, duration, location, extra_notes, suffix)
  host.emit({
    name = full_name(suite, name or suffix),
    suite = concat(names_of(suite), " > "),
    test = name or "",
    status = status,
    message = info and info.message or nil,
    location = (info and info.location) or location,
    diff = info and info.diff or nil,
    trace = info and info.trace or nil,
    traceback = info and info.traceback or nil,
    duration = duration or 0,
    note = extra_notes and #extra_notes > 0 and concat(extra_notes, "\n") or nil,
  })
end

local function hook_error(suite, hookname, err)
  local _, info = classify(err, suite.location or (host.file .. ":0"))
  emit(suite, nil, "error", info, 0, suite.location, nil, hookname)
end

local function has_tests(s)
  for _, c in ipairs(s.children) do
    if c.kind == "suite" then
      if has_tests(c.suite) then return true end
    elseif c.kind == "error" then
      if matches(full_name(c.suite)) then return true end
    elseif matches(full_name(s, c.name)) then
      return true
    end
  end
  return false
end

local function reset_world()
  local m = module()
  if m and type(m.reset) == "function" then m.reset() end
end

-- As busted: a failing before_each is reported as "<describe> before_each" (an error) and the
-- test body does not run; after_each hooks still run and a failing one is reported as
-- "<describe> after_each" after the test's own record.
local function run_test(t)
  local s = t.suite
  local full = full_name(s, t.name)
  if not matches(full) then return end
  if t.kind == "pending" then
    emit(s, t.name, "skipped", nil, 0, t.location)
    return
  end
  host.begin(full, t.location)
  local start = host.clock()
  notes = {}
  running = { finally = {} }
  local status, info = "passed", nil
  local function record(ok, err)
    if not ok and status == "passed" then status, info = classify(err, t.location) end
  end
  record(call(reset_world))
  local chain = {}
  local x = s
  while x do insert(chain, 1, x); x = x.parent end
  local ran = {}
  local hook_failed = false
  local late = {}
  if status == "passed" then
    for _, su in ipairs(chain) do
      ran[#ran + 1] = su
      for _, f in ipairs(su.before_each) do
        local ok, err = call(f)
        if not ok then
          late[#late + 1] = { su, "before_each", err }
          hook_failed = true
          break
        end
      end
      if hook_failed then break end
    end
  end
  if status == "passed" and not hook_failed then record(call(t.fn)) end
  local fins = running.finally
  for i = #fins, 1, -1 do record(call(fins[i])) end
  for i = #ran, 1, -1 do
    for _, f in ipairs(ran[i].after_each) do
      local ok, err = call(f)
      if not ok then late[#late + 1] = { ran[i], "after_each", err }; break end
    end
  end
  running = nil
  local n = notes
  notes = nil
  host.begin(nil, nil)
  if not hook_failed then
    emit(s, t.name, status, info, host.clock() - start, t.location, n)
  end
  for _, l in ipairs(late) do hook_error(l[1], l[2], l[3]) end
end

local function run_suite(s)
  local any = has_tests(s)
  local setup_ok = true
  for _, f in ipairs(s.setup) do
    if any or s.strict[f] then
      local ok, err = call(f)
      if not ok then
        hook_error(s, "setup", err)
        setup_ok = false
        break
      end
    end
  end
  if setup_ok then
    for _, c in ipairs(s.children) do
      if c.kind == "suite" then run_suite(c.suite)
      elseif c.kind == "error" then
        local full = full_name(c.suite)
        if matches(full) then
          local info
          if c.err ~= nil then local _; _, info = classify({ e = c.err, tb = c.tb }, c.location)
          else info = { message = c.message, location = c.location } end
          emit(c.suite, nil, "error", info, 0, c.location)
        end
      else run_test(c) end
    end
  end
  for _, f in ipairs(s.teardown) do
    if any or s.strict[f] then
      local ok, err = call(f)
      if not ok then
        hook_error(s, "teardown", err)
        break
      end
    end
  end
end

-- ---------------------------------------------------------------- globals

G.describe = describe
G.context = describe
G.insulate = describe
G.expose = describe
G.it = it
G.spec = it
G.test = it
G.pending = pending
G.before_each = hook("before_each")
G.after_each = hook("after_each")
G.setup = hook("setup", true)
G.teardown = hook("teardown", true)
G.strict_setup = hook("setup", true)
G.strict_teardown = hook("teardown", true)
G.lazy_setup = hook("setup")
G.lazy_teardown = hook("teardown")
G.finally = finally
G.randomize = function() end
G.assert = assert_table
G.spy = spy
G.stub = stub_table
G.match = match

return {
  run = function(chunk)
    local ok, err = xpcall(chunk, handler)
    collecting = false
    if not ok then
      if host.limit() then error(err.e, 0) end
      local st, info = classify(err, host.file .. ":0")
      if st == "failed" then st = "error" end
      emit(root, nil, "error", info, 0, host.file .. ":0", nil, "suite " .. host.file)
      return
    end
    run_suite(root)
    local flushed, problem = pcall(flush_snapshots)
    if not flushed then
      local where = host.file .. ":0"
      emit(root, nil, "error", { message = tostring(problem), location = where }, 0, where, nil, "suite " .. host.file)
    end
  end,
}
