local host = ...
local G = _G
local type, pairs, ipairs, tostring, select, error, pcall, xpcall, setmetatable, getmetatable, rawequal, next =
      type, pairs, ipairs, tostring, select, error, pcall, xpcall, setmetatable, getmetatable, rawequal, next
local sfind, sformat, srep, sgsub, concat, insert, sort, unpack =
      string.find, string.format, string.rep, string.gsub, table.concat, table.insert, table.sort, table.unpack

-- ---------------------------------------------------------------- helpers

local function module()
  local ok, m = pcall(require, "responder")
  if ok and type(m) == "table" then return m end
  return nil
end

local AssertionMT = {}
AssertionMT.__tostring = function(self)
  if self.location then return self.location .. ": " .. self.message end
  return self.message
end
local PendingMT = { __tostring = function(self) return "pending: " .. tostring(self.message) end }

local function is_assertion(e) return type(e) == "table" and getmetatable(e) == AssertionMT end

local function fail(message, diff, trace)
  error(setmetatable({ message = message, location = host.where(), diff = diff, trace = trace }, AssertionMT), 0)
end

-- pcall that never swallows a sandbox limit (instruction budget, memory, interrupt)
local function protected(fn, ...)
  local r = table.pack(pcall(fn, ...))
  if not r[1] and host.limit() then error(r[2], 0) end
  return unpack(r, 1, r.n)
end

local function split_lines(text)
  local lines = {}
  text = tostring(text)
  local pos = 1
  while true do
    local s, e = sfind(text, "\n", pos, true)
    if not s then lines[#lines + 1] = text:sub(pos); break end
    lines[#lines + 1] = text:sub(pos, s - 1)
    pos = e + 1
  end
  return lines
end

local function clean_traceback(tb)
  if type(tb) ~= "string" then return nil end
  local out = {}
  for line in tb:gmatch("[^\n]+") do
    if line:find("(responder test)", 1, true) or line:find("in function 'xpcall'", 1, true) then break end
    if not line:find("in function 'error'", 1, true) then out[#out + 1] = line end
  end
  if #out <= 1 then return nil end
  return concat(out, "\n")
end

-- ---------------------------------------------------------------- serializing (deterministic)

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    local order = { number = 1, string = 2, boolean = 3 }
    return (order[ta] or 9) < (order[tb] or 9) or ((order[ta] or 9) == (order[tb] or 9) and ta < tb)
  end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local function has_tostring(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and mt.__tostring ~= nil
end

local function scalar(v)
  local t = type(v)
  if t == "string" then return sformat("%q", v):gsub("\\\n", "\\n") end
  if t == "number" or t == "boolean" or t == "nil" then return tostring(v) end
  return tostring(v)
end

local function serialize(v, indent, seen, out)
  indent = indent or ""
  seen = seen or {}
  out = out or {}
  if type(v) ~= "table" or has_tostring(v) then
    out[#out + 1] = scalar(v)
    return out
  end
  if seen[v] then out[#out + 1] = "<cycle>"; return out end
  seen[v] = true
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  if #keys == 0 then out[#out + 1] = "{}"; seen[v] = nil; return out end
  sort(keys, key_less)
  out[#out + 1] = "{\n"
  local inner = indent .. "  "
  for _, k in ipairs(keys) do
    local ks
    if type(k) == "string" and k:match("^[%a_][%w_]*$") then ks = k else ks = "[" .. scalar(k) .. "]" end
    out[#out + 1] = inner .. ks .. " = "
    serialize(v[k], inner, seen, out)
    out[#out + 1] = ",\n"
  end
  out[#out + 1] = indent .. "}"
  seen[v] = nil
  return out
end

local function dump(v) return concat(serialize(v)) end

local function describe_value(v)
  return "(" .. type(v) .. ") " .. dump(v)
end

local function deepcompare(a, b, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, va in pairs(a) do
    local vb = b[k]
    if vb == nil or not deepcompare(va, vb, seen) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- line diff (LCS); eq(expectedLine, actualLine) decides a match
local function diff_lines(exp, act, eq)
  eq = eq or function(x, y) return x == y end
  local n, m = #exp, #act
  local out = {}
  if n * m > 250000 then
    for _, l in ipairs(exp) do out[#out + 1] = "- " .. l end
    for _, l in ipairs(act) do out[#out + 1] = "+ " .. l end
    return concat(out, "\n")
  end
  local L = {}
  for i = n + 1, 1, -1 do
    L[i] = {}
    for j = m + 1, 1, -1 do
      if i > n or j > m then L[i][j] = 0
      elseif eq(exp[i], act[j]) then L[i][j] = L[i + 1][j + 1] + 1
      else
        local a, b = L[i + 1][j], L[i][j + 1]
        L[i][j] = a >= b and a or b
      end
    end
  end
  local i, j = 1, 1
  while i <= n or j <= m do
    if i <= n and j <= m and eq(exp[i], act[j]) then
      out[#out + 1] = "  " .. act[j]; i = i + 1; j = j + 1
    elseif i <= n and (j > m or L[i + 1][j] >= L[i][j + 1]) then
      out[#out + 1] = "- " .. exp[i]; i = i + 1
    else
      out[#out + 1] = "+ " .. act[j]; j = j + 1
    end
  end
  return concat(out, "\n")
end

local function value_diff(expected, actual)
  return "--- expected\n+++ actual\n" .. diff_lines(split_lines(dump(expected)), split_lines(dump(actual)))
end

-- ---------------------------------------------------------------- the assertion engine (luassert-like)

local assertions = {}
local modifiers = { is = true, are = true, was = true, has = true, does = true, to = true, be = true,
                    a = true, an = true, the = true, with = true, ["not"] = "not", no = "not" }

local function register(names, nargs, fn)
  for _, n in ipairs(names) do assertions[n] = { nargs = nargs, fn = fn } end
end

local StateMT = {}

local function new_state(tokens, spy)
  return setmetatable({ tokens = tokens, spy = spy }, StateMT)
end

StateMT.__index = function(self, key)
  if type(key) ~= "string" then return nil end
  local tokens = {}
  for _, t in ipairs(rawget(self, "tokens")) do tokens[#tokens + 1] = t end
  for tok in key:lower():gmatch("[^_]+") do tokens[#tokens + 1] = tok end
  return new_state(tokens, rawget(self, "spy"))
end

local function run_assertion(state, ...)
  local tokens = rawget(state, "tokens")
  local found, negate, name
  for i = 1, #tokens do
    local candidate = concat(tokens, "_", i, #tokens)
    if assertions[candidate] then
      found, name = assertions[candidate], candidate
      negate = false
      for k = 1, i - 1 do
        local mod = modifiers[tokens[k]]
        if mod == nil then found = nil; break end
        if mod == "not" then negate = not negate end
      end
      if found then break end
    end
  end
  if not found then
    error(host.where() .. ": unknown assertion 'assert." .. concat(tokens, ".") .. "'", 0)
  end
  local args = table.pack(...)
  local custom = nil
  if found.nargs and args.n > found.nargs then custom = args[found.nargs + 1] end
  local ok, message, diff, trace = found.fn(negate, rawget(state, "spy"), args)
  if ok == negate then
    if custom ~= nil then message = tostring(custom) .. "\n" .. (message or "") end
    fail(message or ("assertion '" .. name .. "' failed"), diff, trace)
  end
  return ...
end
StateMT.__call = run_assertion

local assert_table = {}
setmetatable(assert_table, {
  __index = function(_, key) return StateMT.__index(new_state({}, nil), key) end,
  __call = function(_, v, msg, ...)
    if not v then fail(msg ~= nil and tostring(msg) or "assertion failed!") end
    return v, msg, ...
  end,
})

local function neg_text(negate, yes, no) return negate and no or yes end

register({ "equal", "equals" }, 2, function(negate, _, a)
  local expected, actual = a[1], a[2]
  local ok = expected == actual
  local msg = "Expected objects to " .. neg_text(negate, "", "not ") .. "be equal.\nPassed in:\n" ..
              describe_value(actual) .. "\nExpected:\n" .. describe_value(expected)
  local diff
  if not negate and type(expected) == "string" and type(actual) == "string" and
     (expected:find("\n", 1, true) or actual:find("\n", 1, true)) then
    diff = "--- expected\n+++ actual\n" .. diff_lines(split_lines(expected), split_lines(actual))
  end
  return ok, msg, diff
end)

register({ "same" }, 2, function(negate, _, a)
  local expected, actual = a[1], a[2]
  local ok = deepcompare(expected, actual)
  if negate then
    return ok, "Expected objects to not be the same.\nPassed in:\n" .. describe_value(actual)
  end
  return ok, "Expected objects to be the same.", value_diff(expected, actual)
end)

local function single(names, test, what)
  register(names, 1, function(negate, _, a)
    return test(a[1]), "Expected " .. describe_value(a[1]) .. " to " .. neg_text(negate, "", "not ") .. "be " .. what
  end)
end
single({ "true" }, function(v) return v == true end, "true")
single({ "false" }, function(v) return v == false end, "false")
single({ "truthy" }, function(v) return v ~= nil and v ~= false end, "truthy")
single({ "falsy" }, function(v) return v == nil or v == false end, "falsy")
single({ "nil" }, function(v) return v == nil end, "nil")
for _, t in ipairs({ "string", "number", "table", "function", "boolean", "userdata", "thread" }) do
  single({ t }, function(v) return type(v) == t end, "a " .. t)
end

register({ "near" }, 3, function(negate, _, a)
  local expected, actual, tol = a[1], a[2], a[3]
  local ok = type(actual) == "number" and math.abs(actual - expected) <= tol
  return ok, "Expected " .. describe_value(actual) .. " to " .. neg_text(negate, "", "not ") ..
    "be near " .. tostring(expected) .. " (tolerance " .. tostring(tol) .. ")"
end)

register({ "matches", "match" }, 2, function(negate, _, a)
  local pattern, actual = a[1], a[2]
  local ok = type(actual) == "string" and sfind(actual, pattern) ~= nil
  return ok, "Expected " .. describe_value(actual) .. " to " .. neg_text(negate, "", "not ") ..
    "match pattern " .. sformat("%q", tostring(pattern))
end)

register({ "unique" }, 1, function(negate, _, a)
  local list = a[1]
  local ok = true
  for i = 1, #list do
    for j = i + 1, #list do
      if deepcompare(list[i], list[j]) then ok = false end
    end
  end
  return ok, "Expected the list to " .. neg_text(negate, "", "not ") .. "have unique values:\n" .. dump(list)
end)

local function strip_position(e)
  if type(e) == "string" then return (sgsub(e, "^.-:%d+: ", "", 1)) end
  if is_assertion(e) then return e.message end
  return e
end

register({ "error", "errors", "has_error" }, 2, function(negate, _, a)
  local fn, expected = a[1], a[2]
  if type(fn) ~= "function" and not (getmetatable(fn) or {}).__call then
    error(host.where() .. ": bad argument #1 to 'has_error' (function expected, got " .. type(fn) .. ")", 0)
  end
  local ok, err = protected(fn)
  if ok then
    return false, "Expected an error" .. (expected ~= nil and (" " .. describe_value(expected)) or "") .. ", but the function returned normally"
  end
  local actual = strip_position(err)
  local text = "Expected " .. neg_text(negate, "an error", "no error") ..
    (expected ~= nil and (" " .. describe_value(expected)) or "") .. ".\nCaught:\n" .. describe_value(actual)
  if expected == nil then return true, text end
  if type(expected) == "string" then
    if has_tostring(actual) then actual = tostring(actual) end
    return expected == actual, text
  end
  return deepcompare(expected, actual), text, (not negate) and value_diff(expected, actual) or nil
end)

register({ "error_matches", "error_match", "matches_error" }, 4, function(negate, _, a)
  local fn, pattern, init, plain = a[1], a[2], a[3], a[4]
  local ok, err = protected(fn)
  if ok then return false, "Expected an error matching " .. sformat("%q", tostring(pattern)) .. ", but the function returned normally" end
  local actual = strip_position(err)
  if has_tostring(actual) then actual = tostring(actual) end
  local text = "Expected the error to " .. neg_text(negate, "", "not ") .. "match " .. sformat("%q", tostring(pattern)) ..
    ".\nCaught:\n" .. describe_value(actual)
  if type(actual) ~= "string" then return false, text end
  return sfind(actual, pattern, init, plain) ~= nil, text
end)

