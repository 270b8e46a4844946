-- luassert's engine, written for responder test (SPEC §3.7): the assert object and its states
-- (modifier/assertion chains), the snapshot states (formatters, parameters, spies), the value
-- formatters, the basic assertions with luassert 1.9.0's messages, and `luassert.util`.
-- Spies/stubs/mocks and matchers live in their own chunks, loaded on first use.
local ctx = ...
local host = ctx.host
local type, pairs, ipairs, next, tostring, select, error, pcall, setmetatable, getmetatable, rawget, rawequal =
      type, pairs, ipairs, next, tostring, select, error, pcall, setmetatable, getmetatable, rawget, rawequal
local insert, unpack = table.insert, table.unpack

-- ---------------------------------------------------------------- failures and errors

-- A failed assertion: busted's failure object (message with the spec's `file:line: `).
local FailureMT = { __tostring = function(e) return tostring(e.message) end }
local FailureNoStringMT = {}
ctx.FailureMT, ctx.FailureNoStringMT = FailureMT, FailureNoStringMT

local function has_tostring(v)
  if type(v) == "string" then return true end
  local mt = getmetatable(v)
  return type(mt) == "table" and type(rawget(mt, "__tostring")) == "function"
end

local function callable(v)
  if type(v) == "function" then return true end
  local mt = getmetatable(v)
  return type(mt) == "table" and type(rawget(mt, "__call")) == "function"
end

local function where_prefix()
  local w = host.where()
  return w and (w .. ": ") or ""
end

-- Raises a failure (status "failed" inside an it). `info` may carry `diff` and `trace`. The
-- message starts with the place luassert's error(message, level) gives it: the script line
-- that called the assertion, none when a C function did (`pcall(assert.is_true, false)`).
local function raise_failure(message, info)
  local location = host.where()
  local e
  if type(message) == "string" then
    local place = host.assertion_where()
    e = setmetatable({ message = (place and (place .. ": ") or "") .. message }, FailureMT)
  else
    e = setmetatable({ message = message }, has_tostring(message) and FailureMT or FailureNoStringMT)
  end
  e.location = location
  if info then e.diff, e.trace = info.diff, info.trace end
  error(e, 0)
end
ctx.raise_failure = raise_failure

-- Raises a plain error located at the spec line.
local function raise(message) error(where_prefix() .. message, 0) end
ctx.raise = raise


-- ---------------------------------------------------------------- util

local util = {}
local ArglistMT = {}
ctx.ArglistMT = ArglistMT
ctx.SpyMT = ctx.SpyMT or {}
ctx.MatcherMT = ctx.MatcherMT or {}

function util.pack(...) return { n = select("#", ...), ... } end
function util.unpack(t, i, j) return unpack(t, i or 1, j or t.n or #t) end
util.callable, util.hastostring = callable, has_tostring

function util.make_arglist(...)
  return setmetatable({ n = select("#", ...), ... }, ArglistMT)
end
function util.is_arglist(v) return getmetatable(v) == ArglistMT end

-- table.insert/remove that keep `n` (trailing nils) as luassert's do
function util.tinsert(...)
  local count = select("#", ...)
  local t, pos, val = ...
  if count < 3 then val, pos = pos, nil end
  t.n = (t.n or #t) + 1
  if pos == nil then pos = t.n
  elseif pos > t.n then t.n = pos end
  for i = t.n, pos + 1, -1 do t[i] = t[i - 1] end
  t[pos] = val
end

function util.tremove(t, pos)
  t.n = t.n or #t
  if pos == nil then pos = t.n
  elseif pos > t.n then
    local v = t[pos]
    t[pos] = nil
    return v
  end
  local v = t[pos]
  for i = pos, t.n do t[i] = t[i + 1] end
  t[t.n] = nil
  t.n = t.n - 1
  return v
end

function util.cleararglist(list)
  for i = list.n, 1, -1 do util.tremove(list, i) end
  list.n = nil
end

local function plain_mt(t)
  local mt = getmetatable(t)
  if type(mt) == "table" then return mt end
  return nil
end

-- Deep comparison as luassert's: cycles compare by their unfolding (a pair already under
-- comparison is assumed equal), `__eq` is used below the top level when both share a
-- metatable that has one. On a difference, returns false and the key path (innermost first).
local function deepcompare(a, b, ignore_mt, pairs_seen)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  local mta, mtb = plain_mt(a), plain_mt(b)
  if mta and mta == mtb and rawget(mta, "__eq") then
    if not ignore_mt then return a == b end
  elseif rawequal(a, b) then
    return true
  end
  pairs_seen = pairs_seen or {}
  local seen_a = pairs_seen[a]
  if seen_a and seen_a[b] then return true end
  if not seen_a then seen_a = {}; pairs_seen[a] = seen_a end
  seen_a[b] = true
  for k, va in next, a do
    local vb = b[k]
    if vb == nil then return false, { k } end
    local same, crumbs = deepcompare(va, vb, nil, pairs_seen)
    if not same then
      crumbs = crumbs or {}
      crumbs[#crumbs + 1] = k
      return false, crumbs
    end
  end
  for k in next, b do
    if a[k] == nil then return false, { k } end
  end
  return true
end
util.deepcompare = function(a, b, ignore_mt) return deepcompare(a, b, ignore_mt) end

function util.shallowcopy(t)
  if type(t) ~= "table" then return t end
  local copy = {}
  for k, v in next, t do copy[k] = v end
  local mt = plain_mt(t)
  if mt then pcall(setmetatable, copy, mt) end
  return copy
end


-- ---------------------------------------------------------------- namespaces and states

local namespaces = { modifier = {}, assertion = {}, matcher = {} }
ctx.namespaces = namespaces

-- Finds the keys in a token list, longest names first from the end (luassert's rule).
local function find_keys(nspace, tokens)
  local ns, mods = namespaces[nspace], namespaces.modifier
  local keys, key = {}, nil
  local i = #tokens
  while i > 0 do
    key = key and (tokens[i] .. "_" .. key) or tokens[i]
    while i > 1 and ns[tokens[i - 1] .. "_" .. key] do
      key = tokens[i - 1] .. "_" .. key
      i = i - 1
    end
    if mods[key] or ns[key] then
      insert(keys, 1, key)
      key = nil
    end
    i = i - 1
  end
  return keys, key
end

function util.extract_keys(nspace, tokens)
  local keys, unknown = find_keys(nspace, tokens)
  -- the name may live in a part not loaded yet: load them one at a time, the likeliest first
  while unknown and ctx.load_lazy() do keys, unknown = find_keys(nspace, tokens) end
  if unknown then raise("luassert: unknown modifier/" .. nspace .. ": '" .. unknown .. "'") end
  return keys
end

local state = {}
local current
local SnapshotMT = { __call = function(self) self:revert() end }
local NIL = {}

function state.revert(self)
  if not self then
    self = current
    if not self.previous then return end
  end
  if getmetatable(self) ~= SnapshotMT then error("Value provided is not a valid snapshot", 2) end
  if self.next then self.next:revert() end
  self.formatters = {}
  self.parameters = {}
  for s in pairs(self.spies) do
    self.spies[s] = nil
    s:revert()
  end
  setmetatable(self, nil)
  current = self.previous
  current.next = nil
end

function state.snapshot()
  local new = setmetatable({ formatters = {}, parameters = {}, spies = setmetatable({}, { __mode = "kv" }),
                             previous = current, revert = state.revert }, SnapshotMT)
  if current then current.next = new end
  current = new
  return new
end

function state.add_formatter(fn)
  if not callable(fn) then raise("add_formatter(): a formatter must be a function (got " .. type(fn) .. ")") end
  insert(current.formatters, 1, fn)
end

function state.remove_formatter(fn, s)
  s = s or current
  for i, v in ipairs(s.formatters) do
    if v == fn then table.remove(s.formatters, i); break end
  end
  if s.previous then state.remove_formatter(fn, s.previous) end
end

function state.format_argument(value, s, fmtargs)
  s = s or current
  while s do
    for _, fmt in ipairs(s.formatters) do
      local text = fmt(value, fmtargs)
      if text ~= nil then return text end
    end
    s = s.previous
  end
  return nil
end

function state.set_parameter(name, value)
  if value == nil then value = NIL end
  current.parameters[name] = value
end

function state.get_parameter(name, s)
  s = s or current
  while s do
    local v = s.parameters[name]
    if v ~= nil then
      if v == NIL then return nil end
      return v
    end
    s = s.previous
  end
  return nil
end

function state.add_spy(s) current.spies[s] = true end

ctx.root_state = state.snapshot()
ctx.state = state

-- The formatters, default parameters and messages live in luassert_format.lua, loaded the first
-- time a state operation or a failure message needs them.
local format_loaded = false
local function ensure_format()
  if format_loaded then return end
  format_loaded = true
  ctx.say = ctx.say or host.chunk("say")()
  host.chunk("luassert_format")(ctx)
end
ctx.ensure_format = ensure_format
for _, name in ipairs({ "snapshot", "add_formatter", "remove_formatter", "format_argument", "set_parameter",
                        "get_parameter" }) do
  local plain = state[name]
  state[name] = function(...)
    ensure_format()
    return plain(...)
  end
end

-- ---------------------------------------------------------------- the assert object

local obj = {}
local StateMT = {}
local LevelMT = {}

local function format_failure_message(m)
  if has_tostring(m) then return tostring(m) end
  if m ~= nil then return state.format_argument(m) end
  return nil
end

local function geterror(message_key, failure_message, args)
  ensure_format()
  failure_message = format_failure_message(failure_message)
  local message = ctx.say(message_key, obj:format(args))
  if message and failure_message then message = failure_message .. "\n" .. message end
  return message or failure_message
end

-- Errors raised by the framework's own Lua inside an assertion point at the spec line (the
-- chunks are named after their files: `Sources/ResponderTesting/Lua/NAME.lua:N:`).
local function relocate(e)
  if type(e) == "string" then
    local rest = e:match("^Sources/ResponderTesting/Lua/[%w_]+%.lua:%d+: (.*)$")
    if rest then return where_prefix() .. rest end
  end
  return e
end

local function checked(ok, a, b, c)
  if not ok then
    if host.limit() then error(a, 0) end
    error(relocate(a), 0)
  end
  return a, b, c
end

local function call_assertion(assertion, self, args)
  return checked(pcall(assertion.callback, self, args, 1))
end

StateMT.__call = function(self, ...)
  local keys = util.extract_keys("assertion", self.tokens)
  local assertion
  for _, k in ipairs(keys) do assertion = namespaces.assertion[k] or assertion end
  if assertion then
    for _, k in ipairs(keys) do
      local m = namespaces.modifier[k]
      if m then m.callback(self) end
    end
    local args = { n = select("#", ...), ... }
    local ok, retargs, info = call_assertion(assertion, self, args)
    if (not ok) == self.mod then
      local key = self.mod and assertion.positive_message or assertion.negative_message
      local message
      if info and info.message then
        message = info.message
        local fm = format_failure_message(rawget(self, "failure_message"))
        if fm then message = fm .. "\n" .. message end
      else
        message = geterror(key, rawget(self, "failure_message"), args)
      end
      if info and info.diff_fn then
        ensure_format()
        info.diff = info.diff_fn()
      end
      raise_failure(message or "assertion failed!", info)
    end
    if retargs then return unpack(retargs, 1, retargs.n or #retargs) end
    return ...
  end
  local args = util.make_arglist(...)
  self.tokens = {}
  for _, k in ipairs(keys) do
    local m = namespaces.modifier[k]
    if m then m.callback(self, args, 1) end
  end
  return self
end

StateMT.__index = function(self, key)
  if type(key) ~= "string" then return nil end
  local tokens = rawget(self, "tokens")
  local lower = key:lower()
  if lower:find("_", 1, true) then
    for token in lower:gmatch("[^_]+") do tokens[#tokens + 1] = token end
  elseif lower ~= "" then
    tokens[#tokens + 1] = lower
  end
  return self
end
ctx.StateMT = StateMT

function obj.state() return setmetatable({ mod = true, tokens = {} }, StateMT) end

function obj:register(nspace, name, callback, positive, negative)
  if type(name) ~= "string" then
    raise("assert:register(): the name must be a string (got " .. type(name) .. ")")
  end
  local lower = name:lower()
  namespaces[nspace] = namespaces[nspace] or {}
  namespaces[nspace][lower] = { callback = callback, name = lower, positive_message = positive,
                                negative_message = negative }
end

function obj:unregister(nspace, name)
  namespaces[nspace] = namespaces[nspace] or {}
  namespaces[nspace][name:lower()] = nil
end

function obj:add_formatter(fn) state.add_formatter(fn) end
function obj:remove_formatter(fn) state.remove_formatter(fn) end

function obj:format(args)
  local nofmt = args.nofmt or {}
  local fmtargs = args.fmtargs or {}
  for i = 1, (args.n or #args) do
    if not nofmt[i] then
      local v = args[i]
      local text = state.format_argument(v, nil, fmtargs[i])
      if text == nil then text = tostring(v) end
      args[i] = text
    end
  end
  return args
end

function obj:set_parameter(name, value) state.set_parameter(name, value) end
function obj:get_parameter(name) return state.get_parameter(name) end
function obj:add_spy(s) state.add_spy(s) end
function obj:level(level) return setmetatable({ level = level }, LevelMT) end
function obj:get_level(level)
  if getmetatable(level) ~= LevelMT then return nil end
  return level.level
end

-- `assert:snapshot()` and `assert.snapshot()` are luassert's state snapshot; `assert.snapshot(name,
-- text)` is the golden-text assertion of responder test (told apart by the arguments).
function obj.snapshot(self, ...)
  if rawequal(self, obj) or (self == nil and select("#", ...) == 0) then return state.snapshot() end
  return obj.state().snapshot(self, ...)
end

setmetatable(obj, {
  __call = function(self, v, message, level, ...)
    if not v then raise_failure(message or "assertion failed!") end
    return v, message, level, ...
  end,
  __index = function(self, key)
    local v = rawget(self, key)
    if v ~= nil then return v end
    return obj.state()[key]
  end,
})
ctx.assert = obj

-- ---------------------------------------------------------------- basic assertions

local tinsert, tremove = util.tinsert, util.tremove

local function set_message(st, m) if m ~= nil then st.failure_message = m end end
local function fail_too_few(name, min, got)
  ensure_format()
  raise_failure(ctx.say("assertion.internal.argtolittle", { name, min, tostring(got) }))
end
local function fail_bad_arg(n, name, expected, got)
  ensure_format()
  raise_failure(ctx.say("assertion.internal.badargtype", { n, name, expected, got }))
end
ctx.fail_too_few, ctx.fail_bad_arg = fail_too_few, fail_bad_arg

local function reg(names, fn, key)
  local positive, negative = key and key .. ".positive", key and key .. ".negative"
  for _, n in ipairs(names) do obj:register("assertion", n, fn, positive, negative) end
end

obj:register("modifier", "message", function(st, args) st.failure_message = args[1] end)
local function identity(st) return st end
for _, m in ipairs({ "is", "are", "was", "has", "does" }) do obj:register("modifier", m, identity) end
local function negate(st) st.mod = not st.mod; return st end
obj:register("modifier", "not", negate)
obj:register("modifier", "no", negate)

local function is_value(expected)
  return function(st, args)
    tinsert(args, 2, expected)
    set_message(st, args[3])
    return args[1] == args[2]
  end
end
reg({ "true" }, is_value(true), "assertion.same")
reg({ "false" }, is_value(false), "assertion.same")

for _, t in ipairs({ "boolean", "number", "string", "table", "nil", "userdata", "function", "thread" }) do
  reg({ t }, function(st, args)
    tinsert(args, 2, "type " .. t)
    args.nofmt = args.nofmt or {}
    args.nofmt[2] = true
    set_message(st, args[3])
    return args.n > 1 and type(args[1]) == t
  end, "assertion.same")
end

local function same(st, args)
  if args.n <= 1 then fail_too_few("same", 2, args.n) end
  if type(args[1]) == "table" and type(args[2]) == "table" then
    local ok, crumbs = deepcompare(args[1], args[2], true)
    local expected, actual = args[1], args[2]
    local info = (not ok) and { diff_fn = function() return ctx.value_diff(expected, actual) end } or nil
    tinsert(args, 1, tremove(args, 2))
    args.fmtargs = args.fmtargs or {}
    args.fmtargs[1] = { crumbs = crumbs }
    args.fmtargs[2] = { crumbs = crumbs }
    set_message(st, args[3])
    return ok, nil, info
  end
  local ok = args[1] == args[2]
  tinsert(args, 1, tremove(args, 2))
  set_message(st, args[3])
  return ok
end
reg({ "same" }, same, "assertion.same")

reg({ "equals", "equal" }, function(st, args)
  if args.n <= 1 then fail_too_few("equals", 2, args.n) end
  local ok = args[1] == args[2]
  local expected, actual = args[1], args[2]
  local info = (not ok and type(expected) == "string" and type(actual) == "string")
    and { diff_fn = function() return ctx.string_diff(expected, actual) end } or nil
  tinsert(args, 1, tremove(args, 2))
  set_message(st, args[3])
  return ok, nil, info
end, "assertion.equals")

local function truthy(st, args)
  if args.n <= 0 then fail_too_few("truthy", 1, args.n) end
  set_message(st, args[2])
  return args[1] ~= false and args[1] ~= nil
end
reg({ "truthy" }, truthy, "assertion.truthy")
reg({ "falsy" }, function(st, args)
  if args.n <= 0 then fail_too_few("falsy", 1, args.n) end
  return not truthy(st, args)
end, "assertion.falsy")

-- pcall that never swallows a sandbox limit
local function protected(fn)
  local ok, err = pcall(fn)
  if not ok and host.limit() then error(err, 0) end
  return ok, err
end
ctx.protected = protected
ctx.same = same

-- luassert.util / luassert.state as modules
ctx.util = util
ctx.deepcompare = deepcompare
ctx.has_tostring, ctx.callable = has_tostring, callable
return obj
