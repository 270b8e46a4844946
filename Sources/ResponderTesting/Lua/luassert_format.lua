-- luassert's value formatters, its English messages and responder test's line diffs: what a
-- failure message needs, loaded the first time something is formatted, a parameter is read or
-- set, a snapshot is made or `say` is required (written for responder test, SPEC §3.7).
local ctx = ...
local host, state, say, obj = ctx.host, ctx.state, ctx.say, ctx.assert
local type, ipairs, next, tostring, pcall, setmetatable, getmetatable, rawget =
      type, ipairs, next, tostring, pcall, setmetatable, getmetatable, rawget
local sformat, srep, concat, sort = string.format, string.rep, table.concat, table.sort
local ArglistMT, MatcherMT, has_tostring = ctx.ArglistMT, ctx.MatcherMT, ctx.has_tostring
local function is_matcher(v) return type(v) == "table" and getmetatable(v) == MatcherMT end

-- ---------------------------------------------------------------- formatters

local function tostr(v)
  if type(v) ~= "number" then return tostring(v) end
  if v ~= v then return "NaN" end
  if v == 1 / 0 then return "Inf" end
  if v == -1 / 0 then return "-Inf" end
  local s = sformat("%.20g", v)
  if math.type(v) == "float" and not s:find("[%.,]") then s = s:gsub("%d+", "%0.0", 1) end
  return s
end

local ansi = { black = 30, red = 31, green = 32, yellow = 33, blue = 34, magenta = 35, cyan = 36, white = 37,
               bright = 1, dim = 2, underscore = 4, blink = 5, reverse = 7, hidden = 8, reset = 0 }
local function colorize(name, text)
  if name == nil or name == "none" then return text end
  for token in tostring(name):gmatch("[^%.]+") do
    local code = ansi[token]
    if code then text = "\27[" .. code .. "m" .. text .. "\27[0m" end
  end
  return text
end

local type_rank = { number = 1, boolean = 2, string = 3, table = 4, ["function"] = 5, userdata = 6, thread = 7 }

local function sorted_keys(t)
  local keys = {}
  for k in next, t do keys[#keys + 1] = k end
  local length = #t
  local function rank(k)
    if math.type(k) and k >= 1 and k <= length and k == math.floor(k) then return 0 end
    return type_rank[type(k)] or 8
  end
  sort(keys, function(a, b)
    local ra, rb = rank(a), rank(b)
    if ra ~= rb then return ra < rb end
    local ta = type(a)
    if ta ~= type(b) then return ta < type(b) end
    if ta == "string" or ta == "number" then return a < b end
    if ta == "boolean" then return a == true and b == false end
    return false
  end)
  return keys
end

local function format_table(t, fmtargs)
  if type(t) ~= "table" then return nil end
  local maxlevel = state.get_parameter("TableFormatLevel")
  local show_recursion = state.get_parameter("TableFormatShowRecursion")
  local mark_char = state.get_parameter("TableErrorHighlightCharacter") or ""
  local mark_color = state.get_parameter("TableErrorHighlightColor")
  local crumbs = fmtargs and fmtargs.crumbs or {}
  local active = {}
  local head
  local mt = getmetatable(t)
  if mt == nil then
    head = "(" .. tostring(t) .. ") "
  elseif not pcall(setmetatable, t, mt) then
    head = "(table) "
  else
    setmetatable(t, nil)
    head = "(" .. tostring(t) .. ") "
    setmetatable(t, mt)
  end
  local function walk(v, level, on_path)
    if show_recursion and (active[v] or 0) > 0 then return "{ ... recursive }" end
    if next(v) == nil then return "{ }" end
    if maxlevel >= 0 and level > maxlevel then return "{ ... more }" end
    local out = { "{" }
    active[v] = (active[v] or 0) + 1
    local crumb = crumbs[#crumbs - level + 1]
    for _, k in ipairs(sorted_keys(v)) do
      local item = v[k]
      local marked = on_path and k == crumb
      if type(item) == "table" then item = walk(item, level + 1, marked)
      elseif type(item) == "string" then item = "'" .. item .. "'" end
      local ch = marked and mark_char or ""
      out[#out + 1] = "\n" .. srep(" ", level * 2 - #ch) .. (#ch == 0 and "" or colorize(mark_color, ch)) ..
        "[" .. tostr(k) .. "] = " .. tostr(item)
    end
    active[v] = active[v] - 1
    return concat(out) .. " }"
  end
  return head .. walk(t, 1, true)
end

local formatters = {
  function(v) if type(v) == "string" then return "(string) '" .. v .. "'" end end,
  function(v) if type(v) == "number" then return "(number) " .. tostr(v) end end,
  function(v) if type(v) == "boolean" then return "(boolean) " .. tostring(v) end end,
  function(v) if v == nil then return "(nil)" end end,
  format_table,
  function(v)
    if type(v) == "function" then
      local line, source = host.fninfo(v)
      return tostring(v) .. " @ line " .. tostring(line) .. " in " .. tostring(source)
    end
  end,
  function(v) if type(v) == "userdata" then return "(userdata) '" .. tostring(v) .. "'" end end,
  function(v) if type(v) == "thread" then return "(thread) '" .. tostring(v) .. "'" end end,
  function(v)
    if not is_matcher(v) then return nil end
    local parts = {}
    for i = 1, v.arguments.n do parts[i] = obj:format({ v.arguments[i], n = 1 })[1] end
    return "(matcher) " .. (v.mod and "is." or "no.") .. tostring(v.name) .. "(" .. concat(parts, ", ") .. ")"
  end,
  function(v)
    if getmetatable(v) ~= ArglistMT then return nil end
    local parts = {}
    for i = 1, v.n do parts[i] = obj:format({ v[i], n = 1 })[1] end
    return "(values list) (" .. concat(parts, ", ") .. ")"
  end,
}
-- luassert adds each to the front, so the last one listed is tried first; formatters a spec
-- added before this chunk loaded stay in front of them
local root = ctx.root_state
for i = #formatters, 1, -1 do root.formatters[#root.formatters + 1] = formatters[i] end
local defaults = { TableFormatLevel = 3, TableFormatShowRecursion = false, TableErrorHighlightCharacter = "*",
                   TableErrorHighlightColor = "none" }
for k, v in pairs(defaults) do if root.parameters[k] == nil then root.parameters[k] = v end end

-- ---------------------------------------------------------------- messages (en)

say:set_namespace("en")
local messages = {
  ["assertion.same.positive"] = "Expected objects to be the same.\nPassed in:\n%s\nExpected:\n%s",
  ["assertion.same.negative"] = "Expected objects to not be the same.\nPassed in:\n%s\nDid not expect:\n%s",
  ["assertion.equals.positive"] = "Expected objects to be equal.\nPassed in:\n%s\nExpected:\n%s",
  ["assertion.equals.negative"] = "Expected objects to not be equal.\nPassed in:\n%s\nDid not expect:\n%s",
  ["assertion.near.positive"] = "Expected values to be near.\nPassed in:\n%s\nExpected:\n%s +/- %s",
  ["assertion.near.negative"] = "Expected values to not be near.\nPassed in:\n%s\nDid not expect:\n%s +/- %s",
  ["assertion.matches.positive"] = "Expected strings to match.\nPassed in:\n%s\nExpected:\n%s",
  ["assertion.matches.negative"] = "Expected strings not to match.\nPassed in:\n%s\nDid not expect:\n%s",
  ["assertion.unique.positive"] = "Expected object to be unique:\n%s",
  ["assertion.unique.negative"] = "Expected object to not be unique:\n%s",
  ["assertion.error.positive"] = "Expected a different error.\nCaught:\n%s\nExpected:\n%s",
  ["assertion.error.negative"] = "Expected no error, but caught:\n%s",
  ["assertion.truthy.positive"] = "Expected to be truthy, but value was:\n%s",
  ["assertion.truthy.negative"] = "Expected to not be truthy, but value was:\n%s",
  ["assertion.falsy.positive"] = "Expected to be falsy, but value was:\n%s",
  ["assertion.falsy.negative"] = "Expected to not be falsy, but value was:\n%s",
  ["assertion.called.positive"] = "Expected to be called %s time(s), but was called %s time(s)",
  ["assertion.called.negative"] = "Expected not to be called exactly %s time(s), but it was.",
  ["assertion.called_at_least.positive"] = "Expected to be called at least %s time(s), but was called %s time(s)",
  ["assertion.called_at_most.positive"] = "Expected to be called at most %s time(s), but was called %s time(s)",
  ["assertion.called_more_than.positive"] = "Expected to be called more than %s time(s), but was called %s time(s)",
  ["assertion.called_less_than.positive"] = "Expected to be called less than %s time(s), but was called %s time(s)",
  ["assertion.called_with.positive"] = "Function was never called with matching arguments.\nCalled with (last call if any):\n%s\nExpected:\n%s",
  ["assertion.called_with.negative"] = "Function was called with matching arguments at least once.\nCalled with (last matching call):\n%s\nDid not expect:\n%s",
  ["assertion.returned_with.positive"] = "Function never returned matching arguments.\nReturned (last call if any):\n%s\nExpected:\n%s",
  ["assertion.returned_with.negative"] = "Function returned matching arguments at least once.\nReturned (last matching call):\n%s\nDid not expect:\n%s",
  ["assertion.returned_arguments.positive"] = "Expected to be called with %s argument(s), but was called with %s",
  ["assertion.returned_arguments.negative"] = "Expected not to be called with %s argument(s), but was called with %s",
  ["assertion.internal.argtolittle"] = "the '%s' function requires a minimum of %s arguments, got: %s",
  ["assertion.internal.badargtype"] = "bad argument #%s to '%s' (%s expected, got %s)",
  ["assertion.array_holes.positive"] = "Expected array to have holes, but none was found.\n",
  ["assertion.array_holes.negative"] = "Expected array to not have holes, hole found at position: %s\n",
}
for k, v in pairs(messages) do say:set(k, v) end


-- ---------------------------------------------------------------- line diffs (responder test's own)

local function split_lines(text)
  local lines = {}
  text = tostring(text)
  local pos = 1
  while true do
    local s, e = text:find("\n", pos, true)
    if not s then lines[#lines + 1] = text:sub(pos); break end
    lines[#lines + 1] = text:sub(pos, s - 1)
    pos = e + 1
  end
  return lines
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

-- deterministic dump (sorted keys, cycles marked) for the −/+ diff of `same`
local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    local order = { number = 1, string = 2, boolean = 3 }
    local oa, ob = order[ta] or 9, order[tb] or 9
    return oa < ob or (oa == ob and ta < tb)
  end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local function scalar(v)
  if type(v) == "string" then return (sformat("%q", v):gsub("\\\n", "\\n")) end
  return tostring(v)
end

local function serialize(v, indent, seen, out)
  if type(v) ~= "table" or has_tostring(v) then
    out[#out + 1] = scalar(v)
    return
  end
  if seen[v] then out[#out + 1] = "<cycle>"; return end
  seen[v] = true
  local keys = {}
  for k in next, v do keys[#keys + 1] = k end
  if #keys == 0 then out[#out + 1] = "{}"; seen[v] = nil; return end
  sort(keys, key_less)
  out[#out + 1] = "{\n"
  local inner = indent .. "  "
  for _, k in ipairs(keys) do
    local ks
    if type(k) == "string" and k:match("^[%a_][%w_]*$") then ks = k else ks = "[" .. scalar(k) .. "]" end
    out[#out + 1] = inner .. ks .. " = "
    serialize(rawget(v, k), inner, seen, out)
    out[#out + 1] = ",\n"
  end
  out[#out + 1] = indent .. "}"
  seen[v] = nil
end

local function dump(v)
  local out = {}
  serialize(v, "", {}, out)
  return concat(out)
end

local function value_diff(expected, actual)
  return "--- expected\n+++ actual\n" .. diff_lines(split_lines(dump(expected)), split_lines(dump(actual)))
end

local function string_diff(expected, actual)
  if type(expected) == "string" and type(actual) == "string" and
     (expected:find("\n", 1, true) or actual:find("\n", 1, true)) then
    return "--- expected\n+++ actual\n" .. diff_lines(split_lines(expected), split_lines(actual))
  end
  return nil
end
ctx.split_lines, ctx.diff_lines = split_lines, diff_lines

ctx.tostr, ctx.value_diff, ctx.string_diff = tostr, value_diff, string_diff

