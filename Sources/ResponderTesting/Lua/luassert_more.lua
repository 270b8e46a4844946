-- luassert's less common assertions (matches, near, unique, has_error, error_matches,
-- returned_arguments, array/holes) and the util functions spies use (deepcopy, copyargs,
-- matchargs): loaded the first time one is named (written for responder test, SPEC §3.7).
local ctx = ...
local util, obj, state = ctx.util, ctx.assert, ctx.state
local type, pairs, ipairs, next, tostring, tonumber, pcall, setmetatable, getmetatable, rawget, rawset =
      type, pairs, ipairs, next, tostring, tonumber, pcall, setmetatable, getmetatable, rawget, rawset
local SpyMT, MatcherMT = ctx.SpyMT, ctx.MatcherMT
local deepcompare, has_tostring, callable = ctx.deepcompare, ctx.has_tostring, ctx.callable
local raise_failure, fail_too_few, fail_bad_arg = ctx.raise_failure, ctx.fail_too_few, ctx.fail_bad_arg
local protected, same = ctx.protected, ctx.same
local tinsert, tremove = util.tinsert, util.tremove
local function plain_mt(t)
  local mt = getmetatable(t)
  if type(mt) == "table" then return mt end
  return nil
end
local function fmt(v) return state.format_argument(v) or tostring(v) end
local function set_message(st, m) if m ~= nil then st.failure_message = m end end
local function reg(names, fn, key)
  local positive, negative = key and key .. ".positive", key and key .. ".negative"
  for _, n in ipairs(names) do obj:register("assertion", n, fn, positive, negative) end
end

function util.deepcopy(t, deepmt, cache)
  if type(t) ~= "table" then return t end
  cache = cache or {}
  if cache[t] then return cache[t] end
  local copy = {}
  cache[t] = copy
  for k, v in next, t do
    copy[k] = (getmetatable(v) == SpyMT) and v or util.deepcopy(v, deepmt, cache)
  end
  local mt = plain_mt(t)
  if mt then
    if deepmt then mt = util.deepcopy(mt, false, cache) end
    pcall(setmetatable, copy, mt)
  end
  return copy
end

function util.copyargs(args)
  local copy = {}
  local mt = plain_mt(args)
  if mt then setmetatable(copy, mt) end
  for k, v in pairs(args) do
    local keep = type(v) == "table" and (getmetatable(v) == MatcherMT or getmetatable(v) == SpyMT)
    copy[k] = keep and v or util.deepcopy(v)
  end
  return { vals = copy, refs = util.shallowcopy(args) }
end

local function is_matcher(v) return type(v) == "table" and getmetatable(v) == MatcherMT end

-- Does a recorded argument (or return value) list match the expected one?
local function matcharg(args, refs, specs)
  for idx, value in pairs(args) do
    local spec = specs[idx]
    if is_matcher(spec) then
      if spec.name == "ref" then value = refs[idx] end
      if not spec(value) then return false end
    elseif spec == nil or not deepcompare(value, spec) then
      return false
    end
  end
  for idx, spec in pairs(specs) do
    if args[idx] == nil then
      if not is_matcher(spec) or not spec(nil) then return false end
    end
  end
  return true
end

function util.matchargs(list, specs)
  for i = #list, 1, -1 do
    local entry = list[i]
    if matcharg(entry.vals, entry.refs, specs) then return entry end
  end
  return nil
end

function util.matchoncalls(oncalls, args)
  for _, specs in ipairs(oncalls) do
    if matcharg(args, args, specs.vals) then return specs end
  end
  return nil
end

function util.errorlevel(level) return (level or 1) + 1 end

reg({ "returned_arguments" }, function(_, args)
  args[1] = tostring(args[1])
  args[2] = tostring(args.n - 1)
  args.nofmt = args.nofmt or {}
  args.nofmt[1], args.nofmt[2] = true, true
  if args.n < 2 then args.n = 2 end
  return args[1] == args[2]
end, "assertion.returned_arguments")

-- Finds the custom message among the arguments after the pattern (init/plain come first).
local function take_message(args, first)
  for i = first, args.n do
    local v = args[i]
    if v and type(v) ~= "boolean" and not tonumber(v) then
      return tremove(args, i), i == first
    end
  end
  return nil, false
end

reg({ "matches", "match" }, function(st, args)
  if args.n <= 1 then fail_too_few("matches", 2, args.n) end
  local pattern = args[1]
  local actual
  if has_tostring(args[2]) or type(args[2]) == "number" then actual = tostring(args[2]) end
  local message, shifted = take_message(args, 3)
  local init_n = shifted and 4 or 3
  local init, plain = args[3], args[4]
  if type(pattern) ~= "string" then fail_bad_arg(1, "matches", "string", type(args[1])) end
  if not (actual) then fail_bad_arg(2, "matches", "string or object convertible to a string", fmt(args[2])) end
  if not (init == nil or tonumber(init)) then fail_bad_arg(init_n, "matches", "number", type(args[3])) end
  tinsert(args, 1, tremove(args, 2))
  set_message(st, message)
  if plain then
    local ok = actual:find(pattern, init, plain) ~= nil
    return ok, ok and { pattern } or {}
  end
  local caps = table.pack(actual:match(pattern, init))
  return caps[1] ~= nil, caps
end, "assertion.matches")

reg({ "near" }, function(st, args)
  if args.n <= 2 then fail_too_few("near", 3, args.n) end
  local expected, actual, tolerance = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
  local kind = "number or object convertible to a number"
  if not (expected) then fail_bad_arg(1, "near", kind, fmt(args[1])) end
  if not (actual) then fail_bad_arg(2, "near", kind, fmt(args[2])) end
  if not (tolerance) then fail_bad_arg(3, "near", kind, fmt(args[3])) end
  tinsert(args, 1, tremove(args, 2))
  args[3] = tolerance
  args.nofmt = args.nofmt or {}
  args.nofmt[3] = true
  set_message(st, args[4])
  return actual >= expected - tolerance and actual <= expected + tolerance
end, "assertion.near")

reg({ "unique" }, function(st, args)
  local list = args[1]
  local deep
  if type(args[2]) == "boolean" or (args[2] == nil and args.n > 2) then
    deep = args[2]
    set_message(st, args[3])
  else
    if type(args[3]) == "boolean" then deep = args[3] end
    set_message(st, args[2])
  end
  for k, v in pairs(list) do
    for k2, v2 in pairs(list) do
      if k ~= k2 then
        if deep and deepcompare(v, v2, true) then return false end
        if v == v2 then return false end
      end
    end
  end
  return true
end, "assertion.unique")


local function strip_position(e)
  if type(e) == "string" then return (e:gsub("^.-:%d+: ", "", 1)) end
  return e
end

local function has_error(st, args)
  local retargs = util.shallowcopy(args)
  local fn, expected, message = args[1], args[2], args[3]
  if not (callable(fn)) then fail_bad_arg(1, "error", "function or callable object", type(fn)) end
  local ok, actual = protected(fn)
  actual = strip_position(actual)
  retargs[1] = actual
  args.nofmt = {}
  args.n = 2
  args[1] = ok and "(no error)" or actual
  args[2] = expected == nil and "(error)" or expected
  args.nofmt[1] = ok
  args.nofmt[2] = expected == nil
  set_message(st, message)
  if ok or expected == nil then return not ok, retargs end
  if type(expected) == "string" then
    if has_tostring(actual) then
      actual = tostring(actual)
      retargs[1] = actual
    end
    if type(actual) == "string" then return expected == actual, retargs end
  elseif type(expected) == "number" and type(actual) == "string" then
    return tostring(expected) == tostring(tonumber(actual)), retargs
  end
  return same(st, { expected, actual, n = 2 }), retargs
end
reg({ "error", "errors" }, has_error, "assertion.error")

reg({ "error_matches", "error_match", "matches_error", "match_error" }, function(st, args)
  local retargs = util.shallowcopy(args)
  local fn, pattern = args[1], args[2]
  if args.n <= 1 then fail_too_few("error_matches", 2, args.n) end
  if not (callable(fn)) then fail_bad_arg(1, "error_matches", "function or callable object", type(fn)) end
  if not (pattern == nil or type(pattern) == "string") then fail_bad_arg(2, "error", "string", type(pattern)) end
  local message, shifted = take_message(args, 3)
  local init, plain = args[3], args[4]
  if not (init == nil or tonumber(init)) then fail_bad_arg(shifted and 4 or 3, "matches", "number", type(args[3])) end
  local ok, actual = protected(fn)
  actual = strip_position(actual)
  retargs[1] = actual
  args.nofmt = {}
  args.n = 2
  args[1] = ok and "(no error)" or actual
  args[2] = pattern
  args.nofmt[1] = ok
  args.nofmt[2] = false
  set_message(st, message)
  if ok then return false, retargs end
  if actual == nil and pattern == nil then return true, {} end
  if has_tostring(actual) or type(actual) == "number" or type(actual) == "boolean" then
    actual = tostring(actual)
    retargs[1] = actual
  end
  if type(actual) == "string" then
    local found, caps
    if plain then
      found = actual:find(pattern, init, plain) ~= nil
      caps = { pattern }
    else
      caps = table.pack(actual:match(pattern, init))
      found = caps[1] ~= nil
    end
    if found then return true, caps end
    return false, retargs
  end
  return false, retargs
end, "assertion.error")

-- assert.array(t).has.no.holes([length])
obj:register("modifier", "array", function(st, args)
  if args.n <= 0 then raise_failure("No array provided to the array-modifier") end
  if rawget(st, "__array_state") ~= nil then raise_failure("Array already set") end
  rawset(st, "__array_state", args[1])
  return st
end)
obj:register("assertion", "holes", function(st, args)
  local length = args[1]
  local arr = rawget(st, "__array_state")
  if arr == nil then raise_failure("No array set, please use the array modifier to set the array to validate") end
  if length == nil then
    length = 0
    for i in pairs(arr) do
      if math.type(i) and i > length and i == math.floor(i) then length = i end
    end
  end
  if type(length) ~= "number" then raise_failure("expected array length to be of type 'number', got: " .. tostring(length)) end
  local missing
  for i = 1, length do
    if arr[i] == nil then missing = i; break end
  end
  args[1] = missing
  args.n = missing and 1 or 0
  return missing ~= nil, { missing, n = 1 }
end, "assertion.array_holes.positive", "assertion.array_holes.negative")

