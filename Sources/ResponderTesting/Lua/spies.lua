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

-- New or updated snapshots are written once, when the file's tests are done (writing the whole
-- file at each assertion made n snapshots cost O(n²)).
local snapshots_dirty = false
local function flush_snapshots()
  if snapshots_dirty then
    snapshots_dirty = false
    save_snapshots()
  end
end

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
    snapshots_dirty = true
    if notes then notes[#notes + 1] = "snapshot '" .. name .. "' written to " .. snapshot_path end
    return not negate, "snapshot '" .. name .. "' written"
  end
  if stored == text then return true, "Expected the snapshot '" .. name .. "' to differ" end
  if host.update_snapshots then
    snaps[name] = text
    snapshots_dirty = true
    if notes then notes[#notes + 1] = "snapshot '" .. name .. "' updated in " .. snapshot_path end
    return not negate, "snapshot updated"
  end
  return false, "Snapshot '" .. name .. "' does not match " .. snapshot_path ..
    " (run with --update-snapshots to accept the new text)",
    "--- snapshot\n+++ actual\n" .. diff_lines(split_lines(stored), split_lines(text))
end)

