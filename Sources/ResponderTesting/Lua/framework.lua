-- The Lua half of `responder test` (SPEC §3, §3.7): busted 2.1.1's runner model written for this
-- project — blocks that run when reached, hooks (strict and lazy), environments per block
-- (`insulate`/`expose`), `randomize`, tags and name filters — with luassert's assert, spies and
-- matchers. Called by the host with a table of Swift functions and options; returns the runner.
-- Spies/stubs/mocks, matchers and the responder assertions are separate chunks loaded on first use.
local host = ...
local G = _G
local type, pairs, ipairs, tostring, tonumber, select, error, pcall, xpcall, setmetatable, getmetatable,
      rawget, rawset = type, pairs, ipairs, tostring, tonumber, select, error, pcall, xpcall, setmetatable,
      getmetatable, rawget, rawset
local concat, insert, sort = table.concat, table.insert, table.sort
local random, randomseed = math.random, math.randomseed

local ctx = { host = host }

-- ---------------------------------------------------------------- modules and lazy parts

ctx.spy, ctx.stub, ctx.mock, ctx.match, ctx.io = {}, {}, {}, {}, {}

local lazy_chunks = { "luassert_more", "luassert_spies", "luassert_match", "responder_assertions" }
local lazy_loaded = {}
local function load_chunk(name)
  if lazy_loaded[name] then return false end
  lazy_loaded[name] = true
  host.chunk(name)(ctx)
  return true
end

ctx.load_chunk = load_chunk

-- Loads the next lazy part not loaded yet (an unknown assertion name may live in one of them);
-- false when all are loaded.
function ctx.load_lazy()
  for _, name in ipairs(lazy_chunks) do
    if load_chunk(name) then return true end
  end
  return false
end

-- A module table that fills itself from its chunk the first time it is used (the chunk gives it
-- its final metatable).
local function lazy_module(t, chunk)
  local mt
  mt = {
    __index = function(self, key)
      load_chunk(chunk)
      if getmetatable(self) == mt then return rawget(self, key) end
      return self[key]
    end,
    __call = function(self, ...)
      load_chunk(chunk)
      if getmetatable(self) == mt then error("attempt to call a table value", 2) end
      return self(...)
    end,
  }
  setmetatable(t, mt)
end
lazy_module(ctx.spy, "luassert_spies")
lazy_module(ctx.stub, "luassert_spies")
lazy_module(ctx.mock, "luassert_spies")
lazy_module(ctx.match, "luassert_match")
lazy_module(ctx.io, "io_streams")
-- the standard streams and in-memory files for specs (no file system access; io_streams.lua).
-- `host.rawglobal` looks without `rawget`'s reveal: that would create every lazily made name of
-- the responder module (about 2 M instructions) in every spec file, used or not.
if host.rawglobal("io") == nil then rawset(G, "io", ctx.io) end

local assert_obj = host.chunk("luassert_core")(ctx)
local util, state = ctx.util, ctx.state
local PendingMT = { __tostring = function(p) return tostring(p.message) end }
local extras   -- framework_extras.lua, loaded on first use
local fw       -- what the extras see of the runner
local function load_extras()
  if not extras then extras = host.chunk("framework_extras")(ctx, fw) end
  return extras
end
local function capture(e) return load_extras().capture(e) end

-- ---------------------------------------------------------------- tracebacks and messages

-- The spec's own frames of a traceback: framework frames (chunks named
-- `Sources/ResponderTesting/Lua/…`) and the runner below the test are left out.
-- ---------------------------------------------------------------- blocks, context, environments

local root = { descriptor = "suite", attributes = {}, children = {}, env = {} }
local current = root
local stack = {}
local saved_states = {}
local function save_globals() return load_extras().save_globals() end
local function restore_globals(s) return load_extras().restore_globals(s) end

-- Global writes of a hook (levels 1) or of an `expose` block (levels 2) go to an outer block.
local function unwrap(element, levels)
  local parent = element
  for _ = 1, levels do
    parent = parent.parent
    if not parent then break end
  end
  element.env = element.env or {}
  setmetatable(element.env, {
    __newindex = function(_, key, value)
      if not parent then G[key] = value
      else
        parent.env = parent.env or {}
        parent.env[key] = value
      end
    end,
  })
end

local function push(element)
  if current ~= element then
    local mode = element.attributes.envmode
    local saved = false
    if mode == "insulate" then saved = save_globals()
    elseif mode == "unwrap" then unwrap(element, 1)
    elseif mode == "expose" then unwrap(element, 2) end
    saved_states[#saved_states + 1] = saved
  end
  stack[#stack + 1] = current
  current = element
end

local function pop()
  local element = current
  current = stack[#stack]
  stack[#stack] = nil
  if current ~= element then
    local saved = saved_states[#saved_states]
    saved_states[#saved_states] = nil
    if element.attributes.envmode == "expose" and #saved_states > 0 then
      saved_states[#saved_states] = saved_states[#saved_states] and save_globals()
    end
    if saved then restore_globals(saved) end
  end
end

-- The spec chunk's _ENV: globals resolve through the running block and its ancestors, then _G;
-- writes go to the running block (busted's environment).
local rejectors = {}   -- name -> the function refusing it inside a test or hook (busted's reject)
local registered = {}  -- descriptor name (alias included) -> publisher
local rejector

local function lookup(element, key)
  if element.leaf then
    local env = element.env
    if env then
      local v = env[key]
      if v then return v end
    end
    local r = rejectors[key]
    if r then return r end
    if registered[key] then return rejector(key) end
    element = element.parent
  end
  while element do
    local env = element.env
    if env then
      local v = env[key]
      if v then return v end
    end
    element = element.parent
  end
  return G[key]
end
-- `pairs(_ENV)` lists every name the running block sees (its environments, then _G), each with the
-- value a lookup gives, as if the names were plain globals.
local function env_pairs()
  local names, seen = {}, {}
  local function add(t)
    for key in pairs(t) do
      if not seen[key] then seen[key] = true; names[#names + 1] = key end
    end
  end
  local element = current
  if element.leaf then add(rejectors) end
  while element do
    if element.env then add(element.env) end
    element = element.parent
  end
  add(G)
  local i = 0
  return function()
    while i < #names do
      i = i + 1
      local key = names[i]
      local value = lookup(current, key)
      if value ~= nil then return key, value end
    end
    return nil
  end, nil, nil
end

local spec_env = setmetatable({}, {
  __index = function(_, key) return lookup(current, key) end,
  __newindex = function(_, key, value)
    local element = current
    element.env = element.env or {}
    element.env[key] = value
  end,
  __pairs = env_pairs,
})

-- ---------------------------------------------------------------- reporting

local notes = nil   -- false while a test runs and nothing was noted
function ctx.note(text)
  if notes == false then notes = {} end
  if notes then notes[#notes + 1] = text end
end

local function full_name(element)
  if element.full_name then return element.full_name end
  local names = { element.name or element.descriptor }
  local parent = element.parent
  while parent and (parent.name or parent.descriptor) and parent.descriptor ~= "file" do
    insert(names, 1, parent.name or parent.descriptor)
    parent = parent.parent
  end
  element.full_name = concat(names, " ")
  return element.full_name
end

local function suite_path(element)
  local parent = element.parent
  if parent and parent.suite_path then return parent.suite_path end
  local names = {}
  while parent and parent.descriptor ~= "file" and parent.descriptor ~= "suite" do
    insert(names, 1, parent.name or parent.descriptor)
    parent = parent.parent
  end
  local path = concat(names, " > ")
  if element.parent then element.parent.suite_path = path end
  return path
end

local function strip_location(message, location)
  if type(message) == "string" and location and message:sub(1, #location + 2) == location .. ": " then
    return message:sub(#location + 3)
  end
  return message
end

local suppress_pending = host.suppress_pending
local any_failure = false
local emitted = 0   -- records sent (a plain script that sends none is one passing test)

local function emit(element, status, info, duration, test_notes, is_test)
  emitted = emitted + 1
  if status == "skipped" and suppress_pending then return end
  if status == "failed" or status == "error" then any_failure = true end
  local location = info and info.location or element.location
  host.emit({
    -- (a plain script's own error is named after the file, as its test is)
    name = host.plain and element.descriptor == "file" and host.file or full_name(element),
    suite = suite_path(element),
    test = is_test and (element.name or element.descriptor) or "",
    status = status,
    message = info and (status == "failed" and strip_location(info.message, location) or info.message) or nil,
    location = location,
    defined = element.location,
    diff = info and info.diff or nil,
    trace = info and info.trace or nil,
    traceback = info and info.traceback or nil,
    duration = duration or 0,
    note = test_notes and #test_notes > 0 and concat(test_notes, "\n") or nil,
    -- a hook's error (busted's terminal handlers print no mark for one)
    hook = not is_test and element.descriptor ~= "file" and element.descriptor ~= "describe" or nil,
  })
end

-- ---------------------------------------------------------------- running one element

local skip_all = false
local keep_going = host.keep_going ~= false

-- The error handler of every protected run: what busted records (a sandbox limit passes through).
local function handler(e)
  if host.limit() then return { limit = e } end
  return capture(e)
end

-- Runs `run` as `element` (pushed as the current block); a failure outside an `it` is an error.
-- Reports errors of blocks other than tests; returns the status and the captured info.
local function safe(descriptor, run, element)
  push(element)
  local ok, info = xpcall(run, handler)
  pop()
  if ok then return "success" end
  if type(info) ~= "table" or info.kind == nil then
    if type(info) == "table" and info.limit ~= nil then error(info.limit, 0) end
    info = { kind = "error", message = tostring(info), location = element.location }
  end
  local status = info.kind
  if status == "failure" and descriptor ~= "it" then status = "error" end
  if status ~= "pending" and not keep_going then skip_all = true end
  if element.descriptor ~= "it" and status ~= "pending" then emit(element, "error", info, 0) end
  return status, info
end

local executors = {}
local EMPTY = {}

function rejector(name)
  rejectors[name] = rejectors[name] or function()
    error("'" .. name .. "' not supported inside current context block", 2)
  end
  return rejectors[name]
end
rejector("randomize")

local function exec(descriptor, element)
  return safe(descriptor, element.run, element)
end

local function exec_all(descriptor, element, propagate)
  if propagate and element.parent then
    local ok, ancestor = exec_all(descriptor, element.parent, propagate)
    if not ok then return ok, ancestor end
  end
  local ok = true
  for _, hook in ipairs(element[descriptor] or EMPTY) do
    if exec(descriptor, hook) ~= "success" then ok = nil end
  end
  return ok, element
end

local function dexec_all(descriptor, element, propagate)
  local ok = true
  for _, hook in ipairs(element[descriptor] or EMPTY) do
    if exec(descriptor, hook) ~= "success" then ok = nil end
  end
  if propagate and element.parent then
    if not dexec_all(descriptor, element.parent, propagate) then ok = nil end
  end
  return ok
end

local function exec_all_once(descriptor, element)
  if element.parent then
    local ok = exec_all_once(descriptor, element.parent)
    if not ok then return ok end
  end
  element[descriptor] = element[descriptor] or {}
  local list = element[descriptor]
  if list.success ~= nil then return list.success end
  local ok = true
  for _, hook in ipairs(list) do
    if exec(descriptor, hook) ~= "success" then ok = false end
  end
  list.success = ok
  return ok
end

local function lazy_teardown(element)
  if element.lazy_setup and element.lazy_setup.success ~= nil then
    dexec_all("lazy_teardown", element)
    element.lazy_setup.success = nil
  end
end

local default_shuffle, default_seed = host.shuffle, host.seed
local sort_tests = host.sort

local function shuffle(list, seed)
  if seed then randomseed(seed) end
  local n = #list
  while n >= 2 do
    local k = random(n)
    list[n], list[k] = list[k], list[n]
    n = n - 1
  end
end

local function sort_children(list)
  sort(list, function(a, b)
    if a.name and b.name then return a.name < b.name end
    return b.name ~= nil
  end)
end

local function execute_children(element)
  for _, child in ipairs(element.children) do
    local executor = executors[child.descriptor]
    if executor and not skip_all then
      safe(child.descriptor, function() executor(child) end, child)
    end
  end
end

-- describe/insulate/expose/file: run the body, order the children, setup, children, teardown.
local function execute_block(descriptor, element)
  element.env = element.env or {}
  local randomize, seed = default_shuffle, default_seed
  element.env.randomize = function(...)
    randomize = select("#", ...) == 0 or ...
    if randomize then
      local args = { ... }
      seed = tonumber(args[1]) or tonumber(args[2]) or seed
    end
  end
  if safe(descriptor, element.run, element) == "success" then
    if sort_tests then sort_children(element.children)
    elseif randomize then
      element.randomseed = seed
      shuffle(element.children, seed)
    end
    if exec_all("strict_setup", element) then execute_children(element) end
    lazy_teardown(element)
    dexec_all("strict_teardown", element)
  end
end

-- Each `it` in a fresh world (SPEC §3): the responder module's reset(), when there is one.
local module_cache = nil
local function reset_world()
  local ok, m = pcall(require, "responder")
  module_cache = (ok and type(m) == "table" and type(m.reset) == "function") and m or false
end

executors.describe = function(element) execute_block("describe", element) end
executors.file = function(element) execute_block("file", element) end

local verdicts = { success = "passed", failure = "failed", error = "error", pending = "skipped" }
local running_test = nil   -- luacheck: ignore 331 (only its field is set; the runner reads element.finally_fn)
local function set_finally(fn) running_test.finally_fn = fn end
local function throw_pending(message) error(setmetatable({ message = message }, PendingMT), 0) end

executors.it = function(element)
  if element.listed then return load_extras().list_printer(element.location, element.listed) end
  local parent = element.parent
  if not exec_all_once("lazy_setup", parent) then return end
  element.env = element.env or {}
  element.env.finally, element.env.pending = set_finally, throw_pending
  running_test = element
  notes = false
  local start = host.clock()
  host.begin(full_name(element), element.location)
  local ok, ancestor = true, parent
  local status, info = "success", nil
  if module_cache == nil then reset_world() end
  if module_cache then
    local reset_ok, e = pcall(module_cache.reset)
    if not reset_ok then
      if host.limit() then error(e, 0) end
      status, info = "error", capture(e)
    end
  end
  if status == "success" then ok, ancestor = exec_all("before_each", parent, true) end
  if ok then
    if status == "success" then status, info = safe("it", element.run, element) end
    local finally_fn = element.finally_fn
    if finally_fn then
      element.env.pending = rejectors.pending
      local fstatus, finfo = safe("finally", finally_fn, element)
      if fstatus ~= "success" and (status == "success" or status == "pending") then
        status, info = fstatus, finfo
      end
    end
    local verdict = verdicts[status]
    if verdict == "skipped" and info then
      -- where pending() was called, as busted reports it
      info = { message = info.message, location = info.location or element.location }
    end
    emit(element, verdict, info, host.clock() - start, notes or nil, true)
  end
  running_test = nil   -- luacheck: ignore 331
  host.begin(nil, nil)
  notes = nil
  dexec_all("after_each", ancestor, true)
end

executors.pending = function(element)
  if element.listed then return load_extras().list_printer(element.location, element.listed) end
  emit(element, "skipped", nil, 0, nil, true)
end

-- ---------------------------------------------------------------- registration and filters

local filtering = #(host.filters or {}) > 0 or #(host.filter_out or {}) > 0 or #(host.tags or {}) > 0
  or #(host.exclude_tags or {}) > 0
local list_only = host.list

-- busted's filter_loader rules: whether a block of this kind and name is registered at all.
local function admitted(descriptor, name)
  if skip_all then return false end
  if not filtering then return true end
  return load_extras().admitted(descriptor, name)
end
local function registration_name(name) return load_extras().registration_name(name) end

local noop = function() end

local function attach(descriptor, name, fn, location, attributes)
  local leaf = descriptor ~= "describe" and descriptor ~= "file" and descriptor ~= "pending"
  local element = { descriptor = descriptor, attributes = attributes or {}, name = name, run = fn,
                    location = location, parent = current, children = not leaf and {} or nil, leaf = leaf }
  local list = current.children
  list[#list + 1] = element
  local hooks = current[descriptor]
  if not hooks then current[descriptor] = { element } else hooks[#hooks + 1] = element end
  return element
end


-- Makes the global for `descriptor` (or for `alias`, a second name of it).
local function register(descriptor, attributes, alias)
  local is_hook = not (descriptor == "describe" or descriptor == "it" or descriptor == "pending" or
                       descriptor == "file")
  local function publisher(name, fn)
    if fn == nil and type(name) == "function" then
      fn, name = name, alias
    elseif fn == nil then
      fn = attributes and attributes.default_fn
    end
    -- a name that is no text makes a block without a name: busted reports an error; it vanished
    -- here, with its tests (a failing test gave exit 0: found by an adversary probe)
    local kind = type(name)
    if not is_hook and kind ~= "string" and kind ~= "number" and kind ~= "nil" then
      error(string.format("bad argument #1 to '%s' (string expected, got %s)", alias or descriptor, kind), 2)
    end
    local location = host.where()
    local function publish(f)
      if list_only and (is_hook or descriptor == "it" or descriptor == "pending") then
        -- listed when the tree runs, so in definition order as busted lists (a nested block's
        -- tests before the tests that follow the block)
        if is_hook or not admitted(descriptor, name) then return end
        local element = attach(descriptor, name, noop, location, attributes)
        element.listed = registration_name(name)
        return
      end
      if (descriptor == "describe" or descriptor == "it" or descriptor == "pending") and not admitted(descriptor, name) then
        return
      end
      if is_hook and skip_all then return end
      attach(descriptor, name, f, location, attributes)
    end
    if fn then publish(fn) else return publish end
  end
  local exported = alias or descriptor
  registered[exported] = publisher
  root.env[exported] = publisher
  return publisher
end

register("describe")
register("describe", { envmode = "insulate" }, "insulate")
register("describe", { envmode = "expose" }, "expose")
register("it")
register("pending", { default_fn = noop })
register("before_each", { envmode = "unwrap" })
register("after_each", { envmode = "unwrap" })
register("lazy_setup", { envmode = "unwrap" })
register("lazy_teardown", { envmode = "unwrap" })
register("strict_setup", { envmode = "unwrap" })
register("strict_teardown", { envmode = "unwrap" })
if host.lazy then
  register("lazy_setup", { envmode = "unwrap" }, "setup")
  register("lazy_teardown", { envmode = "unwrap" }, "teardown")
else
  register("strict_setup", { envmode = "unwrap" }, "setup")
  register("strict_teardown", { envmode = "unwrap" }, "teardown")
end
register("describe", nil, "context")
register("it", nil, "spec")
register("it", nil, "test")
-- aliases run as their descriptor
executors.insulate, executors.expose, executors.context = nil, nil, nil

root.env.assert = assert_obj
root.env.spy = ctx.spy
root.env.stub = ctx.stub
root.env.mock = ctx.mock
root.env.match = ctx.match

-- ---------------------------------------------------------------- require: built-in modules

fw = { root = root, registered = registered, PendingMT = PendingMT, current = function() return current end }

-- require of the built-in modules (one loader; the Swift side's preload table maps each name to it)
-- luassert.formatters.binarystring: strings as a hex dump, 16 bytes a line with their printable
-- characters (`assert:add_formatter(require "luassert.formatters.binarystring")`)
local function binarystring(arg)
  if type(arg) ~= "string" then return nil end
  local lines = { "Binary string length; " .. #arg .. " bytes" }
  for i = 1, #arg, 16 do
    local chunk = arg:sub(i, i + 15)
    local hex = chunk:gsub(".", function(c) return ("%02x "):format(c:byte()) end)
    local text = chunk:gsub("[^\32-\126]", ".")
    lines[#lines + 1] = hex .. (" "):rep(48 - #hex) .. " " .. text
  end
  return table.concat(lines, "\n")
end

local function load_builtin(name)
  if name == "say" or name == "say.init" then ctx.ensure_format(); return ctx.say end
  if name == "luassert" or name == "luassert.assert" or name == "luassert.init" then return assert_obj end
  if name == "luassert.formatters.binarystring" then return binarystring end
  if name == "luassert.compatibility" then
    -- (getfenv and setfenv need the debug library, which the sandbox leaves out)
    return { unpack = table.unpack }
  end
  if name == "luassert.util" then load_chunk("luassert_more"); return util end
  if name == "luassert.state" then return state end
  if name == "luassert.namespaces" then return ctx.namespaces end
  if name == "luassert.spy" then load_chunk("luassert_spies"); return ctx.spy end
  if name == "luassert.stub" then load_chunk("luassert_spies"); return ctx.stub end
  if name == "luassert.mock" then load_chunk("luassert_spies"); return ctx.mock end
  if name == "luassert.match" then load_chunk("luassert_match"); return ctx.match end
  if name == "luassert.matchers" or name == "luassert.matchers.core" or name == "luassert.matchers.composite" then
    load_chunk("luassert_match")
    return true   -- (they register the matchers, as luassert's own modules do)
  end
  if name == "busted" then return load_extras().busted_api() end
  return true   -- luassert.assertions, .modifiers, .array, .formatters, .languages.en: loaded already
end
host.preload({ "say", "say.init", "luassert", "luassert.init", "luassert.assert", "luassert.util", "luassert.state",
               "luassert.namespaces", "luassert.spy", "luassert.stub", "luassert.mock", "luassert.match",
               "luassert.matchers", "luassert.matchers.core", "luassert.matchers.composite",
               "luassert.assertions", "luassert.modifiers", "luassert.array", "luassert.formatters",
               "luassert.formatters.binarystring", "luassert.compatibility", "luassert.languages.en", "busted" },
             load_builtin)

-- Pure-Lua libraries found through --lpath (Penlight, …) read `package.config`/`package.path`.
if host.lpath and host.rawglobal("package") == nil then
  rawset(G, "package", { config = "/\n;\n?\n!\n-\n", path = host.lpath, cpath = "", loaded = host.loaded(),
                         preload = {} })
end

-- ---------------------------------------------------------------- the run

local function file_element(chunk)
  -- busted insulates each file; a file that runs once is alone in its state, which ends with it
  local mode = (host.repeat_count or 1) > 1 and "insulate" or nil
  local element = { descriptor = "file", attributes = { envmode = mode }, name = host.file, run = chunk,
                    location = host.file .. ":0", parent = root, children = {} }
  root.children = { element }
  return element
end

-- A plain script named explicitly that registered no tests: one test named after the file, passed
-- when it ended without error (SPEC §3), unless the name filters leave it out.
local function plain_admitted()
  if not filtering then return true end
  local name_matches = load_extras().name_matches
  for _, pattern in ipairs(host.filter_out or EMPTY) do
    if name_matches(host.file, pattern) then return false end
  end
  local filters = host.filters or EMPTY
  for _, pattern in ipairs(filters) do
    if name_matches(host.file, pattern) then return true end
  end
  return #filters == 0
end
local function plain_passed(start)
  if not plain_admitted() then return end
  local where = host.file .. ":1"
  host.emit({ name = host.file, suite = "", test = "", status = "passed", location = where, defined = where,
              duration = host.clock() - start })
end

return {
  run = function(chunk)
    local start = host.clock()
    host.setenv(chunk, spec_env)
    for run = 1, host.repeat_count or 1 do
      if run > 1 then
        host.set_run(run)   -- busted reports each run on its own
        root.children, root.env.randomize = {}, nil
        for k in pairs(root) do
          if registered[k] or k == "strict_setup" or k == "lazy_setup" then root[k] = nil end
        end
      end
      local file = file_element(chunk)
      safe("file", function() executors.file(file) end, file)
      if skip_all then break end
    end
    if host.plain and emitted == 0 then plain_passed(start) end
    if ctx.flush_snapshots then
      local flushed, problem = pcall(ctx.flush_snapshots)
      if not flushed then
        local where = host.file .. ":0"
        emit({ name = host.file, full_name = "suite " .. host.file, descriptor = "file", location = where },
             "error",
             { message = tostring(problem), location = where })
      end
    end
    return any_failure
  end,
}
