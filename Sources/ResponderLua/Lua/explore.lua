-- The `explore` table (SPEC §3.5): steering `responder explore` from a script. Under `run` and
-- `test` the registrations are kept but inert, except check, perform, noLuaError, tasks and
-- scenario, which the specs `explore` writes use. Called with the Swift helpers `host`;
-- returns the public table and the registrations (kept in the registry for the explorer).
local host = ...
local type, error, pcall, tostring, ipairs, fmt =
      type, error, pcall, tostring, ipairs, string.format

local E = { actions = {}, byName = {}, inputs = {}, invariants = {}, ignores = {},
            texts = { "", "a", string.rep("x", 64), "\u{E9}\u{1F642}", " " } }
local api = {}

-- Registrations belong to the world: `responder.reset()` (each `it`) starts them afresh.
local generation = host.generation()
local function fresh()
  local g = host.generation()
  if g ~= generation then
    generation = g
    E.actions, E.byName, E.inputs, E.invariants, E.ignores = {}, {}, {}, {}, {}
  end
end
E.fresh = fresh

local function got(v)
  if v == nil then return "no value" end
  return type(v)
end
-- (`depth`: how many helper frames stand between the api function and argerr)
local function argerr(n, fname, expected, v, depth)
  error(fmt("bad argument #%d to 'explore.%s' (%s expected, got %s)", n, fname, expected, got(v)), 3 + (depth or 0))
end
local function checkSelector(n, fname, s)
  if type(s) ~= "string" or not s:match("^[%w_%-%.]*#?[%w_%-%.]*$") or s == "" or s == "#" then
    argerr(n, fname, "selector ('Name', '#id' or 'Name#id')", s, 1)
  end
end

function api.action(name, fn, opts)
  fresh()
  if type(name) ~= "string" or name == "" then argerr(1, "action", "name (string)", name) end
  -- (the name is written into the spec and looked up when replaying: a name that is not UTF-8
  -- was not found again, and a failure that came back every time read as not deterministic;
  -- found by an adversary probe)
  if not utf8.len(name) then error("bad argument #1 to 'explore.action' (name is not valid UTF-8)", 2) end
  if type(fn) ~= "function" then argerr(2, "action", "function", fn) end
  if opts ~= nil and type(opts) ~= "table" then argerr(3, "action", "options table", opts) end
  opts = opts or {}
  local weight = opts.weight
  if weight == nil then weight = 1 end
  if type(weight) ~= "number" or not (weight > 0) or weight == math.huge then  -- luacheck: ignore 581 (NaN)
    error(fmt("bad option 'weight' to 'explore.action' (positive number expected, got %s)", tostring(opts.weight)), 2)
  end
  if opts.when ~= nil and type(opts.when) ~= "function" then
    error(fmt("bad option 'when' to 'explore.action' (function expected, got %s)", got(opts.when)), 2)
  end
  if E.byName[name] then error(fmt("explore.action: an action named '%s' already exists", name), 2) end
  local a = { name = name, fn = fn, weight = weight, when = opts.when }
  E.actions[#E.actions + 1] = a
  E.byName[name] = a
end

function api.inputs(selector, list)
  fresh()
  checkSelector(1, "inputs", selector)
  if type(list) ~= "table" or #list == 0 then argerr(2, "inputs", "non-empty list of strings", list) end
  local copy = {}
  for i, s in ipairs(list) do
    if type(s) ~= "string" then
      error(fmt("bad argument #2 to 'explore.inputs' (item %d is a %s, a string expected)", i, type(s)), 2)
    end
    copy[i] = s
  end
  E.inputs[#E.inputs + 1] = { selector = selector, list = copy }
end

function api.invariant(name, fn)
  fresh()
  if type(name) ~= "string" or name == "" then argerr(1, "invariant", "name (string)", name) end
  if not utf8.len(name) then error("bad argument #1 to 'explore.invariant' (name is not valid UTF-8)", 2) end
  if type(fn) ~= "function" then argerr(2, "invariant", "function", fn) end
  for _, inv in ipairs(E.invariants) do
    if inv.name == name then error(fmt("explore.invariant: an invariant named '%s' already exists", name), 2) end
  end
  E.invariants[#E.invariants + 1] = { name = name, fn = fn }
end

function api.ignore(selector)
  fresh()
  checkSelector(1, "ignore", selector)
  E.ignores[#E.ignores + 1] = selector
end

-- Checks one invariant: nil when it holds, else the failure message.
function E.checkOne(inv, root)
  local ok, r, msg = pcall(inv.fn, root)
  if not ok then return fmt("invariant '%s' raised: %s", inv.name, tostring(r)) end
  if r == false or r == nil then
    return fmt("invariant '%s' does not hold", inv.name) .. (msg ~= nil and (": " .. tostring(msg)) or "")
  end
  return nil
end

function api.check(name)
  fresh()
  if name ~= nil and type(name) ~= "string" then argerr(1, "check", "invariant name (string)", name) end
  local root = host.root()
  local found = false
  for _, inv in ipairs(E.invariants) do
    if name == nil or inv.name == name then
      found = true
      local failure = E.checkOne(inv, root)
      if failure then error(failure, 2) end
    end
  end
  if name ~= nil and not found then error(fmt("explore.check: no invariant named '%s'", name), 2) end
  return true
end

local function makeDraw(source)
  return {
    int = function(lo, hi)
      if type(lo) ~= "number" or type(hi) ~= "number" or lo ~= lo // 1 or hi ~= hi // 1 or lo > hi then
        error("bad arguments to 'draw.int' (integers lo <= hi expected)", 2)
      end
      return source("int", lo, hi)
    end,
    pick = function(list)
      if type(list) ~= "table" or #list == 0 then error("bad argument #1 to 'draw.pick' (non-empty list expected)", 2) end
      return list[source("int", 1, #list)]
    end,
    text = function() return source("text") end,
  }
end

-- Runs custom action i with random draws (rand(lo, hi) from the explorer); the draws are kept
-- in E.lastDraws, also when the action raises.
function E.run(i, root, rand)
  local args = {}
  E.lastDraws = args
  local draw = makeDraw(function(kind, lo, hi)
    local v
    if kind == "int" then v = rand(lo, hi) else v = E.texts[rand(1, #E.texts)] end
    args[#args + 1] = v
    return v
  end)
  E.actions[i].fn(root, draw)
end

function api.perform(name, args)
  fresh()
  if type(name) ~= "string" then argerr(1, "perform", "action name (string)", name) end
  if args ~= nil and type(args) ~= "table" then argerr(2, "perform", "list of drawn values", args) end
  local a = E.byName[name]
  if not a then error(fmt("explore.perform: no action named '%s'", name), 2) end
  args = args or {}
  local n = 0
  local draw = makeDraw(function(kind, lo, hi)
    n = n + 1
    local v = args[n]
    if v == nil then error(fmt("explore.perform: action '%s' drew more values than the %d given", name, #args), 3) end
    if kind == "int" and (type(v) ~= "number" or v < lo or v > hi) then
      error(fmt("explore.perform: value %d of action '%s' is %s, not an integer in [%d, %d]", n, name, tostring(v), lo, hi), 3)
    end
    return v
  end)
  return a.fn(host.root(), draw)
end

-- The running tasks (AsyncButton actions, …), oldest first.
function api.tasks()
  local f = host.liveTasks()
  if f == nil then return {} end
  return f()
end

function api.noLuaError(fn)
  if type(fn) ~= "function" then argerr(1, "noLuaError", "function", fn) end
  local before = host.luaErrors()
  fn()
  local after, message = host.luaErrors()
  if after > before then error("a LuaError was reported: " .. tostring(message), 2) end
  return true
end

function api.scenario(path, opts)
  if type(path) ~= "string" then argerr(1, "scenario", "path (string)", path) end
  if opts ~= nil and type(opts) ~= "table" then argerr(2, "scenario", "options table", opts) end
  local seed = opts and opts.seed
  if seed ~= nil and math.type(seed) ~= "integer" then
    error(fmt("bad option 'seed' to 'explore.scenario' (integer expected, got %s)", got(seed)), 2)
  end
  local safety = opts and opts.safety
  if safety ~= nil and type(safety) ~= "string" then
    error(fmt("bad option 'safety' to 'explore.scenario' (string expected, got %s)", got(safety)), 2)
  end
  return host.scenario(path, seed, safety)
end

return api, E
