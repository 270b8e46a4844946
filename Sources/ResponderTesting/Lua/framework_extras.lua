-- The parts of responder test's runner (framework.lua) that only some files need: the error
-- capture (what a failure or error records), the global save/restore of `insulate`, busted's
-- registration filters (tags, --filter, --filter-out), `--list` and `require "busted"`. Loaded on
-- first use; `fw` gives access to the runner's state.
local ctx, fw = ...
local host = ctx.host
local G = _G
local type, pairs, ipairs, next, tostring, pcall, setmetatable, getmetatable, rawget, rawset, error =
      type, pairs, ipairs, next, tostring, pcall, setmetatable, getmetatable, rawget, rawset, error
local concat, insert = table.concat, table.insert
local FailureMT, FailureNoStringMT, PendingMT = ctx.FailureMT, ctx.FailureNoStringMT, fw.PendingMT
local registered = fw.registered
local extras = {}

-- ---------------------------------------------------------------- errors

local function clean_traceback(tb)
  if type(tb) ~= "string" then return nil end
  local out = {}
  for line in tb:gmatch("[^\n]+") do
    if line:find("in function 'xpcall'", 1, true) then break end
    local framework = line:find("Sources/ResponderTesting/Lua/", 1, true)
      or line:find("in function 'error'", 1, true)
    if not framework then out[#out + 1] = line end
  end
  if #out <= 1 then return nil end
  return concat(out, "\n")
end

local function pretty(v, depth)
  depth = depth or 0
  if type(v) ~= "table" or depth > 3 then return tostring(v) end
  local parts = {}
  for k, x in pairs(v) do parts[#parts + 1] = "  " .. tostring(k) .. " = " .. pretty(x, depth + 1) end
  return "{\n" .. concat(parts, ",\n") .. (#parts > 0 and "\n" or "") .. "}"
end

-- What busted's error handler records: kind (failure/pending/error), message, location, traceback.
function extras.capture(e)
  local mt = getmetatable(e)
  local kind = "error"
  if mt == FailureMT or mt == FailureNoStringMT then kind = "failure"
  elseif mt == PendingMT then kind = "pending" end
  local here = host.where()
  local message
  if kind == "failure" then
    message = e.message
    if type(message) ~= "string" then message = ctx.has_tostring(message) and tostring(message) or pretty(message) end
  elseif kind == "pending" then
    message = e.message
  else
    if ctx.has_tostring(e) then
      local ok, s = pcall(tostring, e)
      message = ok and s or "(error object is a " .. type(e) .. " value)"
    elseif e == nil then message = "Nil error"
    else message = pretty(e) end
  end
  local location = type(message) == "string" and message:match("^([^\n]-:%d+): ") or nil
  if kind ~= "pending" and not location and here then
    message = here .. ": " .. tostring(message)
    location = here
  end
  local trace
  if kind == "error" and type(e) ~= "string" then
    local ok, t = pcall(function() return e.trace end)
    if ok and t ~= nil then trace = tostring(t) end
  end
  return {
    kind = kind, message = message, location = (kind == "failure" and e.location) or location or here,
    diff = kind == "failure" and e.diff or nil, trace = trace or (kind == "failure" and e.trace or nil),
    traceback = kind == "error" and clean_traceback(host.traceback()) or nil,
  }
end

-- ---------------------------------------------------------------- insulate

local function loaded_table() return host.loaded() end

function extras.save_globals()
  local g = {}
  for k in next, G do g[k] = rawget(G, k) end
  local loaded = {}
  for k, v in pairs(loaded_table()) do loaded[k] = v end
  return { gmt = getmetatable(G), g = g, loaded = loaded }
end

function extras.restore_globals(s)
  -- only when it changed: setting _G's metatable makes the responder module bind its kit globals
  if getmetatable(G) ~= s.gmt then pcall(setmetatable, G, s.gmt) end
  for k in next, G do rawset(G, k, s.g[k]) end
  for k, v in next, s.g do
    if rawget(G, k) == nil then rawset(G, k, v) end
  end
  local loaded = loaded_table()
  for k in pairs(loaded) do loaded[k] = s.loaded[k] end
end

-- ---------------------------------------------------------------- registration filters

local filters, filter_out = host.filters or {}, host.filter_out or {}
local tags, exclude_tags = host.tags or {}, host.exclude_tags or {}

-- A pattern Lua finds malformed only once matching reaches its bad part (`a[b` against a name
-- with an `a`) fails the file, as busted's filter loader does; one malformed from its start is a
-- usage error before anything runs (TestSettings). (It was matched as plain text, and
-- `--filter "["` ran no test and passed: found by an acceptance probe.)
local function name_matches(full, pattern)
  local ok, r = pcall(string.find, full, pattern)
  if not ok then error(("bad pattern '%s' in --filter or --filter-out: %s"):format(pattern, r), 0) end
  return r ~= nil
end

local function registration_name(name)
  local names = { name }
  local parent = fw.current()
  while parent and (parent.name or parent.descriptor) and parent.descriptor ~= "file" do
    insert(names, 1, parent.name or parent.descriptor)
    parent = parent.parent
  end
  return concat(names, " ")
end

local function has_tag(name, tag) return name:find("#" .. tag) ~= nil end

-- busted's filter_loader rules: whether a block of this kind and name is registered at all.
function extras.admitted(descriptor, name)
  local is_test = descriptor == "it" or descriptor == "pending"
  if descriptor == "describe" or is_test then
    if type(name) == "string" then
      for _, tag in ipairs(exclude_tags) do
        if has_tag(name, tag) then return false end
      end
    end
    for _, pattern in ipairs(filter_out) do
      -- (a malformed pattern matches as plain text, as --filter's does)
      if name_matches(registration_name(name), pattern) then return false end
    end
  end
  if is_test then
    if #tags > 0 then
      local full, found = registration_name(name), false
      for _, tag in ipairs(tags) do
        if has_tag(full, tag) then found = true; break end
      end
      if not found then return false end
    end
    if #filters > 0 then
      local full, found = registration_name(name), false
      for _, pattern in ipairs(filters) do
        if name_matches(full, pattern) then found = true; break end
      end
      if not found then return false end
    end
  end
  return true
end

extras.registration_name = registration_name
extras.name_matches = name_matches

-- ---------------------------------------------------------------- --list and require "busted"

function extras.list_printer(location, name)
  print((location and (location .. ": ") or "") .. name)
end


-- `require "busted"`: built on first use
local busted_api = nil
function extras.busted_api()
  if busted_api then return busted_api end
  busted_api = {
    version = "2.1.1",
    describe = registered.describe, it = registered.it, pending = registered.pending,
    insulate = registered.insulate, expose = registered.expose, context = registered.context,
    spec = registered.spec, test = registered.test,
    setup = registered.setup, teardown = registered.teardown,
    before_each = registered.before_each, after_each = registered.after_each,
    lazy_setup = registered.lazy_setup, lazy_teardown = registered.lazy_teardown,
    strict_setup = registered.strict_setup, strict_teardown = registered.strict_teardown,
    assert = ctx.assert, spy = ctx.spy, stub = ctx.stub, mock = ctx.mock, match = ctx.match,
  }
  function busted_api.fail(message, level)
    local text = message
    if type(message) == "string" then
      local _, located = pcall(error, message, (type(level) == "number" and level > 0) and level + 2 or 3)
      text = located
    end
    error(setmetatable({ message = text }, ctx.has_tostring(message) and FailureMT or FailureNoStringMT), 0)
  end
  -- busted's mediator: channels form a tree by namespace ({ "a", "b" } below { "a" }); a
  -- publish runs the channel's subscribers in order, then its parent's, collecting the first
  -- result of each; a subscriber that does not return a true second result stops it there.
  local function new_channel(parent) return { callbacks = {}, channels = {}, parent = parent } end
  local root_channel = new_channel(nil)
  local function channel_of(namespace)
    local channel = root_channel
    for _, name in ipairs(namespace or {}) do
      local child = channel.channels[name]
      if not child then
        child = new_channel(channel)
        channel.channels[name] = child
      end
      channel = child
    end
    return channel
  end
  local next_id = 0
  function busted_api.subscribe(namespace, fn, options)
    local channel = channel_of(namespace)
    next_id = next_id + 1
    local sub = { id = next_id, fn = fn, options = options or {}, channel = channel }
    local position = #channel.callbacks + 1
    local priority = sub.options.priority
    if type(priority) == "number" and priority >= 0 and priority < position then position = priority end
    insert(channel.callbacks, position, sub)
    return sub
  end
  local function remove_from(channel, id)
    local removed
    for i, sub in ipairs(channel.callbacks) do
      if sub.id == id then removed = table.remove(channel.callbacks, i); break end
    end
    for _, child in pairs(channel.channels) do removed = remove_from(child, id) or removed end
    return removed
  end
  function busted_api.unsubscribe(id, namespace)
    return remove_from(channel_of(namespace), id)
  end
  function busted_api.publish(namespace, ...)
    local result = {}
    local channel = channel_of(namespace)
    while channel do
      for _, sub in ipairs(channel.callbacks) do
        local predicate = sub.options.predicate
        if not predicate or predicate(...) then
          local value, continue = sub.fn(...)
          if value then insert(result, value) end
          if not continue then return result end
        end
      end
      channel = channel.parent
    end
    return result
  end
  function busted_api.gettime() return host.clock() end
  busted_api.monotime = busted_api.gettime
  -- busted.sleep(seconds): waits by polling the clock (no blocking call: the limits can stop it)
  function busted_api.sleep(seconds)
    local until_ = host.clock() + (tonumber(seconds) or 0)
    while host.clock() < until_ do end
  end
  function busted_api.parent(element) return element and element.parent end
  function busted_api.children(element) return element and element.children or {} end
  -- busted.bindfenv(f, name, value): `name` is a global of `f` alone (callable tables: their __call)
  function busted_api.bindfenv(callable, var, value)
    local mt = getmetatable(callable)
    local f = type(mt) == "table" and mt.__call or callable
    local env = setmetatable({}, { __index = host.fenv(f) or _G })
    env[var] = value
    host.fenv(f, env)
  end
  -- as busted's module: its fields are neither replaced nor added to
  local api = busted_api
  busted_api = setmetatable({}, {
    __index = api,
    __newindex = function() error("Attempt to modify busted", 2) end,
    __pairs = function() return next, api, nil end,
  })
  return busted_api
end


return extras
