-- luassert's matchers, written for responder test (SPEC §3.7): `match._`, `match.is_string()`,
-- `match.is_not.equal(x)`, `match.all_of(...)`, … usable on their own and in called_with /
-- returned_with / on_call_with. Loaded on first use; fills the module table the core made.
local ctx = ...
local util, assert, MatcherMT, namespaces = ctx.util, ctx.assert, ctx.MatcherMT, ctx.namespaces
local type, ipairs, tostring, tonumber, setmetatable, getmetatable, rawget = type, ipairs, tostring, tonumber,
      setmetatable, getmetatable, rawget
local state = ctx.state
local match = ctx.match

MatcherMT.__call = function(self, value) return self.callback(value) == self.mod end

local MatchStateMT = {}
MatchStateMT.__index = ctx.StateMT.__index
MatchStateMT.__call = function(self, ...)
  local keys = util.extract_keys("matcher", self.tokens)
  self.tokens = {}
  local matcher
  for _, k in ipairs(keys) do matcher = namespaces.matcher[k] or matcher end
  local args = util.make_arglist(...)
  if matcher then
    for _, k in ipairs(keys) do
      local m = namespaces.modifier[k]
      if m then m.callback(self) end
    end
    local fn = matcher.callback(self, args, 1)
    return setmetatable({ name = matcher.name, mod = self.mod, callback = fn, arguments = args }, MatcherMT)
  end
  for _, k in ipairs(keys) do
    local m = namespaces.modifier[k]
    if m then m.callback(self, args, 1) end
  end
  return self
end

match._ = setmetatable({ mod = true, callback = function() return true end, name = "_",
                         arguments = { n = 0 } }, MatcherMT)
function match.state() return setmetatable({ mod = true, tokens = {} }, MatchStateMT) end
function match.is_matcher(v) return type(v) == "table" and getmetatable(v) == MatcherMT end
function match.is_ref_matcher(v) return match.is_matcher(v) and v.name == "ref" end
setmetatable(match, {
  __index = function(self, key)
    local v = rawget(self, key)
    if v ~= nil then return v end
    return match.state()[key]
  end,
})

-- ---------------------------------------------------------------- matchers

local fail_too_few, fail_bad_arg = ctx.fail_too_few, ctx.fail_bad_arg
local function fmt(v) return state.format_argument(v) or tostring(v) end
local function reg(name, fn) assert:register("matcher", name, fn) end

reg("true", function() return function(v) return v == true end end)
reg("false", function() return function(v) return v == false end end)
for _, t in ipairs({ "nil", "boolean", "number", "string", "table", "function", "userdata", "thread" }) do
  reg(t, function() return function(v) return type(v) == t end end)
end
reg("truthy", function() return function(v) return v ~= false and v ~= nil end end)
reg("falsy", function() return function(v) return v == false or v == nil end end)

reg("ref", function(_, args)
  local kind = type(args[1])
  if args.n <= 0 then fail_too_few("ref", 1, args.n) end
  if not (kind == "table" or kind == "function" or kind == "thread" or kind == "userdata") then fail_bad_arg(1, "ref", "object", kind) end
  return function(v) return v == args[1] end
end)

reg("same", function(_, args)
  if args.n <= 0 then fail_too_few("same", 1, args.n) end
  return function(v)
    if type(v) == "table" and type(args[1]) == "table" then return (util.deepcompare(v, args[1], true)) end
    return v == args[1]
  end
end)

local function equals(_, args)
  if args.n <= 0 then fail_too_few("equals", 1, args.n) end
  return function(v) return v == args[1] end
end
reg("equals", equals)
reg("equal", equals)

local function matches(_, args)
  if args.n <= 0 then fail_too_few("matches", 1, args.n) end
  local pattern, init, plain = args[1], args[2], args[3]
  if type(pattern) ~= "string" then fail_bad_arg(1, "matches", "string", type(args[1])) end
  if not (init == nil or tonumber(init)) then fail_bad_arg(2, "matches", "number", type(args[2])) end
  return function(v)
    local kind = type(v)
    local text
    if kind == "string" or kind == "number" or (kind == "table" and ctx.has_tostring(v)) then text = tostring(v) end
    if not text then return false end
    return text:find(pattern, init, plain) ~= nil
  end
end
reg("matches", matches)
reg("match", matches)

reg("near", function(_, args)
  if args.n <= 1 then fail_too_few("near", 2, args.n) end
  local expected, tolerance = tonumber(args[1]), tonumber(args[2])
  local kind = "number or object convertible to a number"
  if not (expected) then fail_bad_arg(1, "near", kind, fmt(args[1])) end
  if not (tolerance) then fail_bad_arg(2, "near", kind, fmt(args[2])) end
  return function(v)
    local actual = tonumber(v)
    if not actual then return false end
    return actual >= expected - tolerance and actual <= expected + tolerance
  end
end)

reg("unique", function(_, args)
  local deep = args[1]
  return function(list)
    for k, v in pairs(list) do
      for k2, v2 in pairs(list) do
        if k ~= k2 then
          if deep and util.deepcompare(v, v2, true) then return false end
          if v == v2 then return false end
        end
      end
    end
    return true
  end
end)

local function composite(name, short, on_match, otherwise)
  reg(name, function(_, args)
    if args.n <= 0 then fail_too_few(short, 1, args.n) end
    for i = 1, args.n do
      if not (match.is_matcher(args[i])) then fail_bad_arg(1, short, "matcher", type(args[i])) end
    end
    return function(v)
      for _, m in ipairs(args) do
        if m(v) == on_match then return not otherwise end
      end
      return otherwise
    end
  end)
end
composite("none_of", "none", true, true)
composite("any_of", "any", true, false)
composite("all_of", "all", false, true)
