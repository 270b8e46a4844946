-- G: the global table; rawmeta(v): the real metatable (ignores __metatable locks);
-- uptables(f): the table upvalues of f (the method table behind an __index closure).
local G, rawmeta, uptables = ...
local type, tostring, next, getmetatable, rawget, rawlen, pcall, select, require =
      type, tostring, next, getmetatable, rawget, rawlen, pcall, select, require
local ipairs, mtype = ipairs, math.type
local sort, concat, fmt = table.sort, table.concat, string.format

local MAXDEPTH, MAXITEMS, WIDTH = 4, 50, 80
local M = {}

local keywords = {}
for w in ("and break do else elseif end false for function goto if in local nil not or repeat return then true until while"):gmatch("%a+") do
  keywords[w] = true
end

local function isident(k)
  return type(k) == "string" and not keywords[k] and k:match("^[%a_][%w_]*$") ~= nil
end

local function quote(s)
  return (fmt("%q", s):gsub("\\\n", "\\n"))
end

local function safetostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == "string" then return s end
  return "<" .. type(v) .. ">"
end

-- Whether v prints by its __tostring; with a protected metatable (`__metatable`, as the kit's
-- tasks, timers and handles have; they printed as `{}`) its __tostring cannot be looked at, so
-- tostring is asked once and its text returned too.
local function hastostring(v)
  local mt = getmetatable(v)
  if type(mt) == "table" then return rawget(mt, "__tostring") ~= nil end
  if mt == nil then return false end
  local text = safetostring(v)
  if text:find("^table: ") then return false end
  return true, text
end

local rank = { number = 1, string = 2, boolean = 3 }
local function keyorder(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    local ra, rb = rank[ta] or 4, rank[tb] or 4
    if ra ~= rb then return ra < rb end
    return ta < tb
  end
  if ta == "number" or ta == "string" then return a < b end
  if ta == "boolean" then return (not a) and b end
  return safetostring(a) < safetostring(b)
end

local render, compact, compactValue

local function renderkey(k, depth, seen)
  if isident(k) then return k end
  return "[" .. render(k, depth + 1, seen, "") .. "]"
end

-- `{k=v, ...}` as a value's `tostring` writes its fields (SPEC 2.1: `Name{k=v}`), but with the
-- tables inside shown (`{1, 2, {a=1}}`) rather than `{…}`; keys sorted, strings quoted.
function compact(t, depth, seen)
  if seen[t] then return "<cycle>" end
  if depth > MAXDEPTH then return "{…}" end
  seen[t] = true
  local parts, n = {}, rawlen(t)
  for i = 1, n do parts[#parts + 1] = compactValue(rawget(t, i), depth, seen) end
  local keys = {}
  for k in next, t do
    if not (mtype(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  sort(keys, keyorder)
  for _, k in ipairs(keys) do
    local key = type(k) == "string" and k or "[" .. compactValue(k, depth, seen) .. "]"
    parts[#parts + 1] = key .. "=" .. compactValue(rawget(t, k), depth, seen)
    if #parts >= MAXITEMS then parts[#parts + 1] = "…" break end
  end
  seen[t] = nil
  return "{" .. concat(parts, ", ") .. "}"
end

function compactValue(x, depth, seen)
  if type(x) == "string" then return quote(x) end
  if type(x) == "table" and not hastostring(x) then return compact(x, depth + 1, seen) end
  return render(x, depth + 1, seen, "")
end

-- The responder module's functions by value, for printing `View` rather than `function: 0x...`.
local builtinNames
local function builtinName(f)
  if builtinNames == nil then
    builtinNames = {}
    local ok, R = pcall(require, "responder")
    if ok and type(R) == "table" then
      for k, x in next, R do
        if type(x) == "function" and type(k) == "string" then builtinNames[x] = k end
      end
    end
  end
  return builtinNames[f]
end

local typeKinds = { event = "Event", error = "Error" }

-- Types print as what they are (`Event type Greeted`); values as their type name and their fields.
local function renderResponderUserdata(v, depth, seen, indent)
  local mt = rawmeta(v)
  local kind = type(mt) == "table" and rawget(mt, "__name") or nil
  if kind == "responder.type" then
    local ok, name, k, alertable = pcall(function() return v.name, v.kind, v.alertable end)
    if not ok then return nil end
    local label = alertable and "AlertableError" or typeKinds[k] or tostring(k)
    return label .. " type " .. tostring(name)
  elseif kind == "responder.value" then
    local ok, name = pcall(function() return v.name end)
    if not ok or type(name) ~= "string" then return nil end
    local fields = {}
    local okPairs = pcall(function() for key, x in pairs(v) do fields[key] = x end end)
    if name == "LuaError" then fields.traceback = nil end
    if not okPairs then return nil end
    return name .. compact(fields, 1, seen)
  end
  return nil
end

-- Arrays too long for one line fill lines up to WIDTH instead of one item per line.
local function fillLines(parts, indent)
  local inner = indent .. "  "
  local lines, line = {}, inner
  for i, p in ipairs(parts) do
    local piece = p .. (i < #parts and "," or "")
    if line ~= inner and #line + 1 + #piece > WIDTH then
      lines[#lines + 1] = line
      line = inner .. piece
    elseif line == inner then
      line = line .. piece
    else
      line = line .. " " .. piece
    end
  end
  lines[#lines + 1] = line
  return "{\n" .. concat(lines, "\n") .. "\n" .. indent .. "}"
end

function render(v, depth, seen, indent)
  local t = type(v)
  if t == "string" then return quote(v) end
  if t == "userdata" then
    local s = renderResponderUserdata(v, depth, seen, indent)
    if s then return s end
  elseif t == "function" then
    local name = builtinName(v)
    if name then
      if name:match("^%u") then return name end
      return "function " .. name
    end
  end
  local printable, text = false, nil
  if t == "table" then printable, text = hastostring(v) end
  if t ~= "table" or printable then
    local s = text or safetostring(v)
    if depth > 0 and s:find("\n", 1, true) then
      s = s:match("^[^\n]*") .. " ..."
    end
    return s
  end
  if seen[v] then return "<cycle>" end
  if next(v) == nil then return "{}" end
  if depth >= MAXDEPTH then return "{...}" end
  seen[v] = true
  local parts, inner = {}, indent .. "  "
  local n = rawlen(v)
  local shown = 0
  for i = 1, n do
    if shown >= MAXITEMS then break end
    parts[#parts + 1] = render(rawget(v, i), depth + 1, seen, inner)
    shown = shown + 1
  end
  local keys = {}
  for k in next, v do
    if not (mtype(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  sort(keys, keyorder)
  local total = n + #keys
  for _, k in ipairs(keys) do
    if shown >= MAXITEMS then break end
    parts[#parts + 1] = renderkey(k, depth, seen) .. " = " .. render(rawget(v, k), depth + 1, seen, inner)
    shown = shown + 1
  end
  if total > shown then parts[#parts + 1] = "... (" .. (total - shown) .. " more)" end
  seen[v] = nil
  local line = "{ " .. concat(parts, ", ") .. " }"
  if #line + #indent <= WIDTH and not line:find("\n", 1, true) then return line end
  if #keys == 0 and not line:find("\n", 1, true) then
    local short = true
    for _, p in ipairs(parts) do
      if #p > WIDTH // 4 then short = false break end
    end
    if short then return fillLines(parts, indent) end
  end
  return "{\n" .. inner .. concat(parts, ",\n" .. inner) .. "\n" .. indent .. "}"
end

-- Readable text of a single value (strings quoted).
function M.render(v) return render(v, 0, {}, "") end

-- The line printed for an entry's results: tab-separated, top-level strings raw (as lua.c).
function M.show(...)
  local n = select("#", ...)
  local out = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == "string" then out[i] = v else out[i] = render(v, 0, {}, "") end
  end
  return concat(out, "\t")
end

-- Tab completion: all candidates (full words, including the typed prefix) for `text`.
local knownFields = {
  ["responder.node"] = { "name", "id", "parent", "children", "props", "on" },
  ["responder.outcome"] = { "handled", "by", "responder", "value", "trace" },
  ["responder.type"] = { "name", "parent" },
  ["responder.value"] = { "type", "name" },
  ["responder.context"] = { "node", "origin", "path" },
}

local function methodsof(obj, add, onlyFunctions)
  local cur, guard = obj, 0
  while cur ~= nil and guard < 8 do
    local mt = rawmeta(cur)
    if type(mt) ~= "table" then return end
    local fields = knownFields[rawget(mt, "__name")]
    if fields and not onlyFunctions then
      for _, k in ipairs(fields) do add(k) end
    end
    local idx = rawget(mt, "__index")
    if type(idx) == "function" then
      for _, t in ipairs(uptables(idx)) do
        for k, val in next, t do
          if type(val) == "function" then add(k) end
        end
      end
      return
    elseif type(idx) ~= "table" then
      return
    end
    for k, val in next, idx do
      if not onlyFunctions or type(val) == "function" then add(k) end
    end
    cur, guard = idx, guard + 1
  end
end

function M.complete(text)
  local out, dup = {}, {}
  local head, sep, partial = text:match("^(.-)([.:])([%w_]*)$")
  local prefix
  local function add(k)
    if isident(k) and not dup[k] and k:sub(1, #partial) == partial then
      dup[k] = true
      out[#out + 1] = prefix .. k
    end
  end
  if not head then
    if text ~= "" and not text:match("^[%a_][%w_]*$") then return out end
    partial, prefix = text, ""
    for k in next, G do add(k) end
    for k in next, keywords do add(k) end
  else
    if head == "" then return out end
    local obj = G
    for name in (head .. "."):gmatch("([^.]*)%.") do
      if not isident(name) then return out end
      local ok, v = pcall(function() return obj[name] end)
      if not ok or v == nil then return out end
      obj = v
    end
    prefix = head .. sep
    if sep == "." and type(obj) == "table" then
      for k in next, obj do add(k) end
    elseif sep == "." and type(obj) == "userdata" then
      -- values (events, errors) list their fields through __pairs
      local ok, f, st, k0 = pcall(pairs, obj)
      if ok then
        pcall(function() for k in f, st, k0 do add(k) end end)
      end
    end
    methodsof(obj, add, sep == ":")
  end
  sort(out)
  return out
end

-- The responder module, if installed.
local function module()
  local ok, R = pcall(require, "responder")
  if ok and type(R) == "table" then return R end
  return nil
end

local function call(f, ...)
  local ok, v = pcall(f, ...)
  if ok then return v end
  return nil
end

-- The mounted root: whatever accessor the module offers.
local function mountedRoot(R)
  for _, name in ipairs({ "mounted", "root", "mountedRoot" }) do
    local f = R[name]
    if type(f) == "function" then
      local root = call(f)
      if root ~= nil then return root end
    elseif f ~= nil then
      return f
    end
  end
  return nil
end

local function filtername(f)
  if f == nil then return nil end
  if type(f) == "string" then return f end
  local ok, name = pcall(function() return f.name end)
  if ok and type(name) == "string" then return name end
  return safetostring(f)
end

local function respondersOf(node)
  local ok, list = pcall(function() return node:responders() end)
  if not ok or type(list) ~= "table" then return "" end
  local parts = {}
  for _, r in ipairs(list) do
    -- the label `graph` shows: `handleEvent(E)`, `triggers(A, B)`
    local s = type(r.label) == "string" and r.label or tostring(r.kind)
    local f = filtername(r.filter)
    if f and type(r.label) ~= "string" then s = s .. "(" .. f .. ")" end
    if r.id ~= nil then s = s .. " id=" .. tostring(r.id) end
    if r.once then s = s .. " once" end
    parts[#parts + 1] = s
  end
  if #parts == 0 then return "" end
  return "  [" .. concat(parts, ", ") .. "]"
end

local function childrenOf(node)
  local ok, kids = pcall(function() return node.children end)
  if ok and type(kids) == "table" then return kids end
  return {}
end

function M.tree(selector)
  local R = module()
  if not R then return nil, "the responder module is not available" end
  local root = mountedRoot(R)
  if root == nil then return nil, "no tree is mounted (mount(root) first)" end
  if selector and selector ~= "" then
    local ok, found = pcall(root.find, root, selector)  -- (the error names no line of this file)
    if not ok then return nil, tostring(found) end
    if found == nil then return nil, "no node matches '" .. selector .. "' in the mounted tree" end
    root = found
  end
  -- an iterative walk (any depth); at most 2000 lines, indentation capped at 40 levels
  local lines, stack, capped, more = {}, { { root, 0 } }, false, false
  while #stack > 0 do
    local item = stack[#stack]
    stack[#stack] = nil
    if #lines >= 2000 then more = true break end
    local node, depth = item[1], item[2]
    local indent = ("  "):rep(depth <= 40 and depth or 40)
    if depth > 40 then indent, capped = indent .. "[depth " .. depth .. "] ", true end
    local okEnabled, enabled = pcall(function() return node.isEnabled end)
    local state = (okEnabled and enabled == false) and " (disabled)" or ""
    lines[#lines + 1] = indent .. safetostring(node) .. state .. respondersOf(node)
    local kids = childrenOf(node)
    for i = #kids, 1, -1 do stack[#stack + 1] = { kids[i], depth + 1 } end
  end
  if more then lines[#lines + 1] = "… (the tree is larger: .tree shows at most 2000 nodes)" end
  if capped then lines[#lines + 1] = "(indentation stops at depth 40; deeper nodes show [depth N])" end
  return concat(lines, "\n")
end

-- The last trace's text when an entry was stopped (Ctrl-C, a limit), and what stopped it where.
local stopped

-- Called by the session when an entry ends early: `.trace` then marks where the action stopped.
function M.markStopped(reason, where)
  local R = module()
  if not R or type(R.lastTrace) ~= "function" then stopped = nil return end
  local t = call(R.lastTrace)
  if t == nil then stopped = nil return end
  stopped = { text = safetostring(t), reason = reason, where = where }
end

function M.trace()
  local R = module()
  if not R or type(R.lastTrace) ~= "function" then return nil, "the responder module has no lastTrace()" end
  local t = R.lastTrace()
  if t == nil then return "no trace yet (trigger, report, publish or tap something first)" end
  local text = safetostring(t)
  if stopped and stopped.text == text then
    local at = stopped.where and (" in " .. stopped.where) or ""
    text = text .. "\n  ✗ stopped here: " .. stopped.reason .. at .. "; the steps after it did not run"
  end
  return text
end

function M.warnings()
  local R = module()
  if not R or type(R.warnings) ~= "function" then return nil, "the responder module has no warnings()" end
  local list = R.warnings()
  if type(list) ~= "table" or #list == 0 then return "no warnings" end
  local lines = {}
  for i, w in ipairs(list) do
    local kind, message = "warning", nil
    if type(w) == "table" then
      kind = tostring(w.kind or "warning")
      message = w.message
      if w.location ~= nil and type(message) == "string" and not message:find(tostring(w.location), 1, true) then
        message = tostring(w.location) .. ": " .. message
      end
    end
    lines[#lines + 1] = fmt("%d. %s: %s", i, kind, message ~= nil and tostring(message) or render(w, 0, {}, ""))
  end
  return concat(lines, "\n")
end

function M.reset()
  local R = module()
  if not R or type(R.reset) ~= "function" then return nil, "the responder module has no reset()" end
  R.reset()
  return "reset: tree, warnings, alert, traces and clock cleared"
end

return M
