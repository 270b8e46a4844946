/// The Lua half of `responder test`: a busted-compatible subset (describe/it/hooks, luassert-style
/// `assert` chains, spies) plus the responder assertions (SPEC §3). Loaded once per spec file into
/// the file's fresh state; the host passes a table of Swift functions (`TestFramework.swift`).
enum TestFrameworkLua {
    static let chunkname = "=(responder test)"

    static let source = #"""
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

-- ---------------------------------------------------------------- spies

local SpyMethods = {}
local SpyMT = { __index = SpyMethods }
SpyMT.__call = function(self, ...)
  local args = table.pack(...)
  self.calls[#self.calls + 1] = { vals = args, refs = args }
  local rets = table.pack(self.callback(...))
  self.returnvals[#self.returnvals + 1] = rets
  return unpack(rets, 1, rets.n)
end
SpyMT.__tostring = function(self) return "spy" end

local match = {}
local Wildcard = setmetatable({}, { __tostring = function() return "match._" end })
match._ = Wildcard
match.is_ = Wildcard

local function args_match(expected, actual)
  if expected.n ~= actual.n then return false end
  for i = 1, expected.n do
    if expected[i] ~= Wildcard and not deepcompare(expected[i], actual[i]) then return false end
  end
  return true
end

function SpyMethods:clear() self.calls = {}; self.returnvals = {}; return self end
function SpyMethods:revert()
  if self.target then self.target[self.key] = self.original end
  return self
end
function SpyMethods:called(n)
  if n == nil then return #self.calls > 0 end
  return #self.calls == n
end
function SpyMethods:called_with(...)
  local want = table.pack(...)
  for _, c in ipairs(self.calls) do if args_match(want, c.vals) then return true end end
  return false
end
function SpyMethods:returned_with(...)
  local want = table.pack(...)
  for _, r in ipairs(self.returnvals) do if args_match(want, r) then return true end end
  return false
end

local spy = {}
function spy.new(fn)
  if fn ~= nil and type(fn) ~= "function" and not (getmetatable(fn) or {}).__call then
    error(host.where() .. ": bad argument #1 to 'spy.new' (function expected, got " .. type(fn) .. ")", 0)
  end
  return setmetatable({ calls = {}, returnvals = {}, callback = fn or function() end }, SpyMT)
end
function spy.on(tbl, name)
  local s = spy.new(tbl[name])
  s.target, s.key, s.original = tbl, name, tbl[name]
  tbl[name] = s
  return s
end
function spy.is_spy(v) return getmetatable(v) == SpyMT end
setmetatable(spy, { __call = function(_, fn) return spy.new(fn) end })

local function stub(tbl, name, ...)
  local rets = table.pack(...)
  local fn = function() return unpack(rets, 1, rets.n) end
  if tbl == nil then return spy.new(fn) end
  local s = spy.new(fn)
  s.target, s.key, s.original = tbl, name, tbl[name]
  tbl[name] = s
  return s
end
local stub_table = setmetatable({ new = stub }, { __call = function(_, ...) return stub(...) end })

local function the_spy(s)
  if not spy.is_spy(s) then
    error(host.where() .. ": assert.spy expects a spy (got " .. type(s) .. ")", 0)
  end
  return s
end

local function calls_text(s)
  local lines = {}
  for i, c in ipairs(s.calls) do
    local parts = {}
    for k = 1, c.vals.n do parts[#parts + 1] = dump(c.vals[k]) end
    lines[#lines + 1] = "  #" .. i .. " (" .. concat(parts, ", ") .. ")"
  end
  if #lines == 0 then return "  (no calls)" end
  return concat(lines, "\n")
end

register({ "called" }, 1, function(negate, s, a)
  local n = a[1]
  if s == nil then s, n = a[1], a[2] end
  s = the_spy(s)
  local count = #s.calls
  local ok
  if n == nil then ok = count > 0 else ok = count == n end
  local want = n == nil and "at least once" or (tostring(n) .. " time(s)")
  return ok, "Expected the spy to " .. neg_text(negate, "", "not ") .. "be called " .. want ..
    ", but it was called " .. count .. " time(s)\nCalls:\n" .. calls_text(s)
end)
local function count_assertion(names, test, what)
  register(names, 1, function(negate, s, a)
    s = the_spy(s)
    local count = #s.calls
    return test(count, a[1]), "Expected the spy to " .. neg_text(negate, "", "not ") .. "be called " .. what ..
      " " .. tostring(a[1]) .. " time(s), but it was called " .. count .. " time(s)"
  end)
end
count_assertion({ "called_at_least" }, function(c, n) return c >= n end, "at least")
count_assertion({ "called_at_most" }, function(c, n) return c <= n end, "at most")
count_assertion({ "called_more_than" }, function(c, n) return c > n end, "more than")
count_assertion({ "called_less_than" }, function(c, n) return c < n end, "less than")
register({ "called_with" }, nil, function(negate, s, a)
  s = the_spy(s)
  local parts = {}
  for k = 1, a.n do parts[#parts + 1] = dump(a[k]) end
  return s:called_with(unpack(a, 1, a.n)), "Expected the spy to " .. neg_text(negate, "", "not ") ..
    "be called with (" .. concat(parts, ", ") .. ")\nCalls:\n" .. calls_text(s)
end)
register({ "returned_with" }, nil, function(negate, s, a)
  s = the_spy(s)
  local parts = {}
  for k = 1, a.n do parts[#parts + 1] = dump(a[k]) end
  return s:returned_with(unpack(a, 1, a.n)), "Expected the spy to " .. neg_text(negate, "", "not ") ..
    "have returned (" .. concat(parts, ", ") .. ")"
end)

rawset(assert_table, "spy", function(s) return new_state({}, the_spy(s)) end)
rawset(assert_table, "stub", function(s) return new_state({}, the_spy(s)) end)

-- ---------------------------------------------------------------- responder assertions

local function trace_text(v)
  if v == nil then return nil end
  local ok, t = pcall(function() return v.trace end)
  if ok and t ~= nil then v = t end
  return tostring(v)
end

local function outcome_trace(o)
  local ok, t = pcall(function() return o.trace end)
  if ok and t ~= nil then return tostring(t) end
  return nil
end

local function field(o, k)
  local ok, v = pcall(function() return o[k] end)
  if ok then return v end
  return nil
end

local function check_outcome(o, fname)
  local t = type(o)
  if t ~= "table" and t ~= "userdata" then
    error(host.where() .. ": " .. fname .. " expects an outcome (from trigger/report), got " .. t, 0)
  end
end

local function node_matches(by, node)
  if node == nil then return true end
  if by == nil then return false end
  if type(node) == "string" then
    if tostring(by) == node then return true end
    local ok, f = pcall(function() return by.name end)
    return ok and f == node
  end
  return rawequal(by, node) or by == node
end

register({ "handled" }, 2, function(negate, _, a)
  local o, node = a[1], a[2]
  check_outcome(o, "assert.handled")
  local handled, by = field(o, "handled"), field(o, "by")
  local ok = handled == true and node_matches(by, node)
  local value = field(o, "value")
  local msg
  if negate then
    msg = "Expected " .. tostring(value) .. " not to be handled" .. (node ~= nil and (" by " .. tostring(node)) or "") ..
      ", but it was handled by " .. tostring(by) .. " (" .. tostring(field(o, "responder")) .. ")"
  elseif handled ~= true then
    msg = "Expected " .. tostring(value) .. " to be handled" .. (node ~= nil and (" by " .. tostring(node)) or "") ..
      ", but it was unhandled"
  else
    msg = "Expected " .. tostring(value) .. " to be handled by " .. tostring(node) ..
      ", but it was handled by " .. tostring(by) .. " (" .. tostring(field(o, "responder")) .. ")"
  end
  return ok, msg, nil, outcome_trace(o)
end)

register({ "unhandled" }, 1, function(negate, _, a)
  local o = a[1]
  check_outcome(o, "assert.unhandled")
  local handled = field(o, "handled")
  local msg = "Expected " .. tostring(field(o, "value")) .. neg_text(negate, " to be unhandled, but it was handled by ",
    " to be handled, but it was unhandled; by = ") .. tostring(field(o, "by")) .. " (" .. tostring(field(o, "responder")) .. ")"
  return handled ~= true, msg, nil, outcome_trace(o)
end)

local function normalize_line(l)
  l = sgsub(l, "%s+", " ")
  l = sgsub(l, "^ ", "")
  return (sgsub(l, " $", ""))
end

local function wanted_lines(expected)
  local raw
  if type(expected) == "table" then raw = expected else raw = split_lines(tostring(expected)) end
  local out = {}
  for _, l in ipairs(raw) do
    l = normalize_line(tostring(l))
    if l ~= "" then out[#out + 1] = l end
  end
  return out
end

local function wildcard_eq(pattern_line, actual_line)
  if not pattern_line:find("*", 1, true) then return pattern_line == actual_line end
  -- `*` matches any text within the line, including none; spaces around it are optional,
  -- so "Item#b * receiveEvent * passed" matches "Item#b #1 receiveEvent passed".
  local p = sgsub(pattern_line, " ?%* ?", "*")
  p = sgsub(p, "[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0")
  p = sgsub(p, "%*", ".-")
  return sfind(actual_line, "^" .. p .. "$") ~= nil
end

register({ "trace" }, 2, function(negate, _, a)
  local subject, expected = a[1], a[2]
  if subject == nil then
    error(host.where() .. ": assert.trace expects a trace or an outcome, got nil", 0)
  end
  local text = trace_text(subject)
  local actual = wanted_lines(text)
  local want = wanted_lines(expected)
  local ok = #actual == #want
  if ok then
    for i = 1, #want do if not wildcard_eq(want[i], actual[i]) then ok = false; break end end
  end
  local msg = negate and "Expected the trace not to match" or "Expected the trace to match (lines compared with whitespace collapsed, * matches anything within a line)"
  return ok, msg, (not negate) and ("--- expected\n+++ actual\n" .. diff_lines(want, actual, wildcard_eq)) or nil, text
end)

local function warnings_list()
  local m = module()
  if not m or type(m.warnings) ~= "function" then
    error(host.where() .. ": the responder module has no warnings() function", 0)
  end
  return m.warnings() or {}
end

local function warning_summary(list, from)
  local lines = {}
  for i = from, #list do
    local w = list[i]
    lines[#lines + 1] = "  " .. tostring(field(w, "kind")) .. ": " .. tostring(field(w, "message"))
  end
  if #lines == 0 then return "  (none)" end
  return concat(lines, "\n")
end

register({ "warns" }, 2, function(negate, _, a)
  local kind, fn = a[1], a[2]
  if type(fn) ~= "function" then
    error(host.where() .. ": assert.warns(kind, fn) expects a function, got " .. type(fn), 0)
  end
  local before = #warnings_list()
  fn()
  local list = warnings_list()
  local ok = false
  for i = before + 1, #list do
    if field(list[i], "kind") == kind then ok = true end
  end
  return ok, "Expected " .. neg_text(negate, "a", "no") .. " warning of kind " .. tostring(kind) ..
    "; warnings recorded during the call:\n" .. warning_summary(list, before + 1)
end)

register({ "no_warnings" }, 1, function(negate, _, a)
  local fn = a[1]
  local before = 0
  if fn ~= nil then
    before = #warnings_list()
    fn()
  end
  local list = warnings_list()
  return #list == before, "Expected " .. neg_text(negate, "no warnings", "warnings") .. ", got:\n" .. warning_summary(list, before + 1)
end)

-- snapshots: one file per spec, `__snapshots__/<spec basename>.snap` beside it
local snapshots = nil
local snapshot_path = host.snapshot_path

local function load_snapshots()
  if snapshots then return snapshots end
  snapshots = {}
  local text = host.snapread(snapshot_path)
  if text then
    local name, lines = nil, nil
    for _, line in ipairs(split_lines(text)) do
      local n = line:match("^=== (.*)$")
      if n then
        if name then snapshots[name] = concat(lines, "\n") end
        name, lines = n, {}
      elseif name and line == "|" then
        lines[#lines + 1] = ""
      elseif name and line:sub(1, 2) == "| " then
        lines[#lines + 1] = line:sub(3)
      end
    end
    if name then snapshots[name] = concat(lines, "\n") end
  end
  return snapshots
end

local function save_snapshots()
  local names = {}
  for n in pairs(snapshots) do names[#names + 1] = n end
  sort(names)
  local out = { "# responder snapshots: rewrite with `responder test --update-snapshots`" }
  for _, n in ipairs(names) do
    out[#out + 1] = ""
    out[#out + 1] = "=== " .. n
    for _, l in ipairs(split_lines(snapshots[n])) do
      out[#out + 1] = l == "" and "|" or ("| " .. l)
    end
  end
  out[#out + 1] = ""
  local ok, err = host.snapwrite(snapshot_path, concat(out, "\n"))
  if not ok then error(host.where() .. ": cannot write " .. snapshot_path .. ": " .. tostring(err), 0) end
end

local notes = nil

register({ "snapshot" }, 2, function(negate, _, a)
  local name, value = a[1], a[2]
  if type(name) ~= "string" or name == "" or name:find("\n", 1, true) then
    error(host.where() .. ": assert.snapshot(name, text) expects a one-line name", 0)
  end
  local text = type(value) == "string" and value or tostring(value)
  local snaps = load_snapshots()
  local stored = snaps[name]
  if stored == nil then
    snaps[name] = text
    save_snapshots()
    if notes then notes[#notes + 1] = "snapshot '" .. name .. "' written to " .. snapshot_path end
    return not negate, "snapshot '" .. name .. "' written"
  end
  if stored == text then return true, "Expected the snapshot '" .. name .. "' to differ" end
  if host.update_snapshots then
    snaps[name] = text
    save_snapshots()
    if notes then notes[#notes + 1] = "snapshot '" .. name .. "' updated in " .. snapshot_path end
    return not negate, "snapshot updated"
  end
  return false, "Snapshot '" .. name .. "' does not match " .. snapshot_path ..
    " (run with --update-snapshots to accept the new text)",
    "--- snapshot\n+++ actual\n" .. diff_lines(split_lines(stored), split_lines(text))
end)

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
  end,
}
"""#
}
