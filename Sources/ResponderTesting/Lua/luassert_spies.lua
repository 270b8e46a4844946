-- luassert's spies, stubs and mocks, written for responder test (SPEC §3.7): `spy.new`/`spy.on`,
-- `stub(obj, key, ...)` with returns/invokes/by_default/on_call_with, `mock(t [, dostub])` with
-- clear/revert, and the spy assertions (called, called_with, returned_with, …). Loaded on first use;
-- fills the module tables the core made (ctx.spy, ctx.stub, ctx.mock).
local ctx = ...
ctx.load_chunk("luassert_more")   -- deepcopy, copyargs, matchargs
local util, assert, SpyMT = ctx.util, ctx.assert, ctx.SpyMT
local type, pairs, tostring, setmetatable, getmetatable, rawget = type, pairs, tostring, setmetatable,
      getmetatable, rawget
local insert = table.insert
local raise = ctx.raise

local spy, stub, mock = ctx.spy, ctx.stub, ctx.mock

-- ---------------------------------------------------------------- spies

local SpyMethods = {}

local function record_returns(self, ...)
  insert(self.returnvals, util.copyargs(util.make_arglist(...)))
  return ...
end

SpyMT.__call = function(self, ...)
  insert(self.calls, util.copyargs(util.make_arglist(...)))
  return record_returns(self, self.callback(...))
end
SpyMT.__index = SpyMethods

function SpyMethods:revert()
  if not self.reverted then
    if self.target_table and self.target_key then self.target_table[self.target_key] = self.callback end
    self.reverted = true
  end
  return self.callback
end

function SpyMethods:clear()
  self.calls = {}
  self.returnvals = {}
  return self
end

function SpyMethods:called(times, compare)
  if times or compare then
    compare = compare or function(count, expected) return count == expected end
    return compare(#self.calls, times), #self.calls
  end
  return #self.calls > 0, #self.calls
end

local function search(list, specs)
  local last = list[#list]
  local found = util.matchargs(list, specs)
  if found then return true, found.vals end
  return false, last and last.vals or nil
end

function SpyMethods:called_with(args) return search(self.calls, args) end
function SpyMethods:returned_with(args) return search(self.returnvals, args) end

local function new_spy(callback)
  callback = callback or function() end
  if not util.callable(callback) then
    raise("Cannot spy on type '" .. type(callback) .. "', only on functions or callable elements")
  end
  local s = setmetatable({ calls = {}, returnvals = {}, callback = callback }, SpyMT)
  assert:add_spy(s)
  return s
end

spy.new = new_spy
function spy.is_spy(v) return type(v) == "table" and getmetatable(v) == SpyMT end
function spy.on(t, key)
  if type(t) ~= "table" and type(t) ~= "userdata" then
    raise("spy.on(): Can only spy on a table key, call with 2 params; table, key (got " .. type(t) .. ")")
  end
  local s = new_spy(t[key])
  t[key] = s
  s.target_table, s.target_key = t, key
  return s
end
setmetatable(spy, { __call = function(_, ...) return new_spy(...) end })

-- ---------------------------------------------------------------- stubs

local raise_failure = ctx.raise_failure

function stub.new(object, key, ...)
  if object == nil and key == nil then object, key = {}, "" end
  local values = util.pack(...)
  if not (type(object) == "table" and key ~= nil) then raise_failure("stub.new(): Can only create stub on a table key, call with 2 params; table, key") end
  if not (object[key] == nil or util.callable(object[key])) then
    raise_failure("stub.new(): The element for which to create a stub must either be callable, or be nil")
  end
  local original = object[key]
  local given = values.n == 1 and util.callable(values[1]) and values[1]
  local default = given or function() return util.unpack(values) end
  local oncalls, actions = {}, {}
  object[key] = function(...)
    local found = util.matchoncalls(oncalls, util.make_arglist(...))
    if found then return actions[found](...) end
    return default(...)
  end
  local s = spy.on(object, key)
  local spy_revert = SpyMethods.revert
  s.revert = function(self)
    if not self.reverted then
      spy_revert(self)
      object[key] = original
      self.reverted = true
    end
    return original
  end
  s.returns = function(...)
    local r = util.pack(...)
    default = function() return util.unpack(r) end
    return s
  end
  s.invokes = function(fn)
    default = function(...) return fn(...) end
    return s
  end
  s.by_default = { returns = s.returns, invokes = s.invokes }
  s.on_call_with = function(...)
    local specs = util.copyargs(util.make_arglist(...))
    return {
      returns = function(...)
        local r = util.pack(...)
        insert(oncalls, specs)
        actions[specs] = function() return util.unpack(r) end
        return s
      end,
      invokes = function(fn)
        insert(oncalls, specs)
        actions[specs] = function(...) return fn(...) end
        return s
      end,
    }
  end
  return s
end
setmetatable(stub, { __call = function(_, ...) return stub.new(...) end })

-- ---------------------------------------------------------------- mocks

local function apply(object, action)
  if type(object) ~= "table" then return end
  if spy.is_spy(object) then return object[action](object) end
  for _, v in pairs(object) do apply(v, action) end
  return object
end

function mock.new(object, dostub, func, owner, key)
  local visited = {}
  local function wrap(value, parent, k)
    local kind = type(value)
    if kind == "table" then
      if spy.is_spy(value) or visited[value] then return value end
      visited[value] = true
      for field, v in pairs(value) do value[field] = wrap(v, value, field) end
      return value
    elseif kind == "function" then
      if dostub then return stub(parent, k, func) end
      if parent == nil then return spy.new(value) end
      return spy.on(parent, k)
    end
    return value
  end
  return wrap(object, owner, key)
end
function mock.clear(object) return apply(object, "clear") end
function mock.revert(object) return apply(object, "revert") end
setmetatable(mock, { __call = function(_, ...) return mock.new(...) end })

-- ---------------------------------------------------------------- assertions

local tinsert = util.tinsert

assert:register("modifier", "spy", function(st, args)
  st.payload = args[1]
  if args[2] ~= nil then st.failure_message = args[2] end
end)
assert:register("modifier", "stub", function(st, args)
  st.payload = args[1]
  st.failure_message = args[2]
end)

local function with_lists(name, method)
  return function(st, args)
    local payload = rawget(st, "payload")
    if type(payload) == "table" and payload[method] then
      local holds, list = payload[method](payload, args)
      local expected = setmetatable(util.shallowcopy(args), ctx.ArglistMT)
      util.cleararglist(args)
      tinsert(args, 1, list)
      tinsert(args, 2, expected)
      return holds
    end
    raise("'" .. name .. "' must be chained after 'spy(aspy)'")
  end
end
assert:register("assertion", "returned_with", with_lists("returned_with", "returned_with"),
  "assertion.returned_with.positive", "assertion.returned_with.negative")
assert:register("assertion", "called_with", with_lists("called_with", "called_with"),
  "assertion.called_with.positive", "assertion.called_with.negative")

local function called(st, args, _, compare)
  local times = args[1]
  if not times and not st.mod then
    st.mod = true
    times = 0
  end
  local payload = rawget(st, "payload")
  if payload and type(payload) == "table" and payload.called then
    local result, count = payload:called(times, compare)
    args[1] = tostring(times or ">0")
    tinsert(args, 2, tostring(count))
    args.nofmt = args.nofmt or {}
    args.nofmt[1], args.nofmt[2] = true, true
    return result
  elseif payload and type(payload) == "function" then
    raise("When calling 'spy(aspy)', 'aspy' must not be the original function, but the spy function replacing the original")
  end
  raise("'called' must be chained after 'spy(aspy)'")
end
assert:register("assertion", "called", called, "assertion.called.positive", "assertion.called.negative")
local function counted(cmp) return function(st, args, level) return called(st, args, level, cmp) end end
assert:register("assertion", "called_at_least", counted(function(c, n) return c >= n end),
  "assertion.called_at_least.positive", "assertion.called_less_than.positive")
assert:register("assertion", "called_at_most", counted(function(c, n) return c <= n end),
  "assertion.called_at_most.positive", "assertion.called_more_than.positive")
assert:register("assertion", "called_more_than", counted(function(c, n) return c > n end),
  "assertion.called_more_than.positive", "assertion.called_at_most.positive")
assert:register("assertion", "called_less_than", counted(function(c, n) return c < n end),
  "assertion.called_less_than.positive", "assertion.called_at_least.positive")
