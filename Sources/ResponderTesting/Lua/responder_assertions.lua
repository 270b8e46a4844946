-- The responder assertions of responder test (SPEC §3), registered on the luassert engine:
-- assert.handled(outcome [, node]), assert.unhandled(outcome), assert.trace(traceOrOutcome, expected),
-- assert.warns(kind, fn), assert.no_warnings([fn]) and assert.snapshot(name, text) (golden texts in
-- `__snapshots__/<spec>.snap`). Loaded on first use. A failing one carries its own message, a −/+
-- diff and the dispatch trace it looked at.
local ctx = ...
local host, assert = ctx.host, ctx.assert
local type, ipairs, tostring, pcall, rawequal = type, ipairs, tostring, pcall, rawequal
local sfind, sgsub, concat, sort = string.find, string.gsub, table.concat, table.sort
ctx.ensure_format()
local raise, split_lines, diff_lines = ctx.raise, ctx.split_lines, ctx.diff_lines

local function module()
  local ok, m = pcall(require, "responder")
  if ok and type(m) == "table" then return m end
  return nil
end

local function register(name, fn)
  assert:register("assertion", name, function(st, args)
    local ok, info = fn(not st.mod, args)
    return ok, nil, info
  end)
end

local function neg_text(negate, yes, no) return negate and no or yes end

local function field(o, k)
  local ok, v = pcall(function() return o[k] end)
  if ok then return v end
  return nil
end

local function outcome_trace(o)
  local t = field(o, "trace")
  if t ~= nil then return tostring(t) end
  return nil
end

local function check_outcome(o, fname)
  local t = type(o)
  if t ~= "table" and t ~= "userdata" then
    raise(fname .. " expects an outcome (from trigger/report), got " .. t)
  end
end

local function node_matches(by, node)
  if node == nil then return true end
  if by == nil then return false end
  if type(node) == "string" then
    if tostring(by) == node then return true end
    return field(by, "name") == node
  end
  return rawequal(by, node) or by == node
end

register("handled", function(negate, a)
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
  return ok, { message = msg, trace = outcome_trace(o) }
end)

register("unhandled", function(negate, a)
  local o = a[1]
  check_outcome(o, "assert.unhandled")
  local msg = "Expected " .. tostring(field(o, "value")) .. neg_text(negate, " to be unhandled, but it was handled by ",
    " to be handled, but it was unhandled; by = ") .. tostring(field(o, "by")) .. " (" .. tostring(field(o, "responder")) .. ")"
  return field(o, "handled") ~= true, { message = msg, trace = outcome_trace(o) }
end)

local function normalize_line(l)
  l = sgsub(l, "%s+", " ")
  l = sgsub(l, "^ ", "")
  return (sgsub(l, " $", ""))
end

local function wanted_lines(expected)
  local raw = type(expected) == "table" and expected or split_lines(tostring(expected))
  local out = {}
  for _, l in ipairs(raw) do
    l = normalize_line(tostring(l))
    if l ~= "" then out[#out + 1] = l end
  end
  return out
end

-- `*` matches any text within the line, including none; spaces around it are optional.
local function wildcard_eq(pattern_line, actual_line)
  if not pattern_line:find("*", 1, true) then return pattern_line == actual_line end
  local p = sgsub(pattern_line, " ?%* ?", "*")
  p = sgsub(p, "[%^%$%(%)%%%.%[%]%+%-%?]", "%%%0")
  p = sgsub(p, "%*", ".-")
  return sfind(actual_line, "^" .. p .. "$") ~= nil
end

register("trace", function(negate, a)
  local subject, expected = a[1], a[2]
  if subject == nil then raise("assert.trace expects a trace or an outcome, got nil") end
  local t = field(subject, "trace")
  local text = tostring(t ~= nil and t or subject)
  local actual, want = wanted_lines(text), wanted_lines(expected)
  local ok = #actual == #want
  if ok then
    for i = 1, #want do
      if not wildcard_eq(want[i], actual[i]) then ok = false; break end
    end
  end
  return ok, {
    message = negate and "Expected the trace not to match"
      or "Expected the trace to match (lines compared with whitespace collapsed, * matches anything within a line)",
    diff = (not negate) and ("--- expected\n+++ actual\n" .. diff_lines(want, actual, wildcard_eq)) or nil,
    trace = text,
  }
end)

local function warnings_list()
  local m = module()
  if not m or type(m.warnings) ~= "function" then raise("the responder module has no warnings() function") end
  return m.warnings() or {}
end

local function warning_summary(list, from)
  local lines = {}
  for i = from, #list do
    lines[#lines + 1] = "  " .. tostring(field(list[i], "kind")) .. ": " .. tostring(field(list[i], "message"))
  end
  if #lines == 0 then return "  (none)" end
  return concat(lines, "\n")
end

local warning_kinds = {}
for _, k in ipairs(host.warning_kinds or {}) do warning_kinds[k] = true end

register("warns", function(negate, a)
  local kind, fn = a[1], a[2]
  if not warning_kinds[kind] then
    local names = {}
    for _, k in ipairs(host.warning_kinds or {}) do names[#names + 1] = k end
    raise("assert.warns: " .. (type(kind) == "string" and "'" .. kind .. "'" or "a " .. type(kind))
      .. " is not a warning kind (kinds: " .. concat(names, ", ") .. ")")
  end
  if type(fn) ~= "function" then raise("assert.warns(kind, fn) expects a function, got " .. type(fn)) end
  local before = #warnings_list()
  -- under strict safety the violation raises instead of being recorded: a strict violation of
  -- that kind raised by the call is what was expected (and is absorbed)
  local strict_count = host.strict_count or function() return 0 end
  local strict_before, any_before = strict_count(kind), strict_count()
  local called, err = pcall(fn)
  local strict_seen = strict_count(kind) > strict_before
  -- (any other error, a strict violation of another kind included, goes on: the test errors)
  if not called and (strict_count() == any_before or not strict_seen) then error(err, 0) end
  local list = warnings_list()
  local ok = strict_seen
  for i = before + 1, #list do
    if field(list[i], "kind") == kind then
      ok = true
      -- an expected warning is not reported with the test
      if not negate and host.silence_warning then host.silence_warning(i) end
    end
  end
  return ok, { message = "Expected " .. neg_text(negate, "a", "no") .. " warning of kind " .. tostring(kind) ..
    "; warnings recorded during the call:\n" .. warning_summary(list, before + 1) }
end)

register("no_warnings", function(negate, a)
  local fn = a[1]
  local before = 0
  if fn ~= nil and not ctx.callable(fn) then
    raise("assert.no_warnings(): expected a function or nothing (got " .. type(fn) .. ")")
  end
  if fn ~= nil then
    before = #warnings_list()
    fn()
  end
  local list = warnings_list()
  return #list == before, { message = "Expected " .. neg_text(negate, "no warnings", "warnings") .. ", got:\n" ..
    warning_summary(list, before + 1) }
end)

-- snapshots: one file per spec, `__snapshots__/<spec basename>.snap` beside it
local snapshots = nil
local snapshot_path = host.snapshot_path

local function load_snapshots()
  if snapshots then return snapshots end
  snapshots = {}
  local text, why = host.snapread(snapshot_path)
  if why then raise("cannot read " .. snapshot_path .. ": " .. why) end
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
  if not ok then raise("cannot write " .. snapshot_path .. ": " .. tostring(err)) end
end

-- New or updated snapshots are written once, when the file's tests are done (writing the whole
-- file at each assertion made n snapshots cost O(n²)).
local snapshots_dirty = false
ctx.flush_snapshots = function()
  if snapshots_dirty then
    snapshots_dirty = false
    save_snapshots()
  end
end

-- name -> text of the snapshots asserted so far in this file's run
local asserted_snapshots = {}

register("snapshot", function(negate, a)
  local name, value = a[1], a[2]
  if type(name) ~= "string" or name == "" or name:find("\n", 1, true) then
    raise("assert.snapshot(name, text) expects a one-line name")
  end
  local text = type(value) == "string" and value or tostring(value)
  -- Snapshot names are per spec file: two assertions of one name with different texts would
  -- overwrite each other under --update-snapshots, which then passed both and the next run
  -- failed one (found by an acceptance probe); the second is refused, saying why.
  local earlier = asserted_snapshots[name]
  if earlier == nil then
    asserted_snapshots[name] = text
  elseif earlier ~= text then
    return negate, {
      message = "Snapshot '" .. name .. "' was asserted earlier in this file with another text: snapshot " ..
        "names are per spec file (give this one a name of its own)",
      diff = "--- earlier in this file\n+++ actual\n" .. diff_lines(split_lines(earlier), split_lines(text)),
    }
  end
  local snaps = load_snapshots()
  local stored = snaps[name]
  if stored == nil then
    snaps[name] = text
    snapshots_dirty = true
    ctx.note("snapshot '" .. name .. "' written to " .. snapshot_path)
    return not negate, { message = "snapshot '" .. name .. "' written" }
  end
  if stored == text then return true, { message = "Expected the snapshot '" .. name .. "' to differ" } end
  if host.update_snapshots then
    snaps[name] = text
    snapshots_dirty = true
    ctx.note("snapshot '" .. name .. "' updated in " .. snapshot_path)
    return not negate, { message = "snapshot updated" }
  end
  return false, {
    message = "Snapshot '" .. name .. "' does not match " .. snapshot_path ..
      " (run with --update-snapshots to accept the new text)",
    diff = "--- snapshot\n+++ actual\n" .. diff_lines(split_lines(stored), split_lines(text)),
  }
end)
