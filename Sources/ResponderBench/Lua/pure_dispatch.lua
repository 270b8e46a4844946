-- A good pure-Lua implementation of HierarchyResponder's dispatch rules, the reference the
-- dispatch benchmarks compare the engine with (responder-bench; scripts/dispatch-floor): the path
-- fixed first, one ordered list per node snapshotted on arrival, typed filters matching subtypes,
-- receive/handle. Returns its functions.
local function isa(t, f) while t do if t == f then return true end t = t.parent end return false end
local EventMT = {}
local function Event(name, parent) local T = { name = name, parent = parent }
  return setmetatable(T, { __call = function(_, fields) fields = fields or {}; fields.type = T; return setmetatable(fields, EventMT) end }) end
local function View(name) return { name = name, responders = {} } end
local function add(parent, child) child.parent = parent end
local function receiveEvent(node, T, fn) local l = node.responders; l[#l + 1] = { kind = "receive", filter = T, fn = fn } end
local function handleEvent(node, T, fn) local l = node.responders; l[#l + 1] = { kind = "handle", filter = T, fn = fn } end
local function trigger(node, ev)
  local path, n = {}, 0
  local cur = node
  while cur do n = n + 1; path[n] = cur; cur = cur.parent end
  local et = ev.type
  for i = 1, n do
    local list = path[i].responders
    local m = #list
    if m > 0 then
      local snap = table.move(list, 1, m, 1, {})
      for j = 1, m do
        local r = snap[j]
        if r.filter == nil or isa(et, r.filter) then
          if r.kind == "receive" then
            if r.fn(ev) then return true, path[i] end
          else
            r.fn(ev)
            return true, path[i]
          end
        end
      end
    end
  end
  return false
end
return { Event = Event, View = View, add = add, receiveEvent = receiveEvent, handleEvent = handleEvent, trigger = trigger }
