local K, M, S = ...
local isNode, kitOf, subtree, invoke = K.isNode, K.kit, K.subtree, K.invoke
local kindName, raise = K.kindName, K.raise
local setLoading = K.setLoading
local traceBegin, traceStep, traceEnd = K.traceBegin, K.traceStep, K.traceEnd
local type, error, next, setmetatable, getmetatable, rawset, rawget, tostring =
  type, error, next, setmetatable, getmetatable, rawset, rawget, tostring
local fmt, unpack, tremove = string.format, table.unpack, table.remove

-- What a function given `...` got as its first argument: NONE when it got none at all (Lua's own
-- errors say "got no value" then, "got nil" for an explicit nil).
local NONE = {}
local function first(...)
  if select("#", ...) == 0 then return NONE end
  return (...)
end
local function argerr(n, fname, expected, v)
  if n == 0 then  -- the self argument, worded as Lua words it
    raise(fmt("calling '%s' on bad self (%s expected, got %s)", fname, expected, kindName(v)))
  end
  -- a number where a number of some range is expected shows its value: "got number -1"
  local got = rawequal(v, NONE) and "no value"
    or (type(v) == "number" and expected:find("number", 1, true)) and fmt("%s %s", kindName(v), tostring(v))
    or kindName(v)
  raise(fmt("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, got))
end
local function callable(v)
  if type(v) == "function" then return true end
  local mt = type(v) == "table" and getmetatable(v)
  return type(mt) == "table" and mt.__call ~= nil
end
local function checkNode(node, fname) if not isNode(node) then argerr(0, fname, "node", node, 1) end end
local function checkFn(n, fname, fn) if not callable(fn) then argerr(n, fname, "function", fn, 1) end end
local function kit(node)
  return kitOf(node, true)
end
local function list(t, key)
  local l = t[key]
  if not l then l = {}; t[key] = l end
  return l
end

-- deep equality for change detection (plain tables by content, everything else by identity)
local function same(a, b, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" or getmetatable(a) or getmetatable(b) then return false end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in next, a do if not same(v, b[k], seen) then return false end end
  for k in next, b do if a[k] == nil then return false end end
  return true
end

-- Handles: what a registration returns; h:cancel() removes the registration ----------------
local HandleMT = { __name = "responder.handle", __metatable = "locked" }
local handleData = setmetatable({}, { __mode = "k" })
HandleMT.__index = function(h, key)
  if key == "cancel" then
    return function(self)
      local d = handleData[self]
      if not d then argerr(0, "cancel", "handle", self) end
      if not d.cancelled then d.cancelled = true; d.remove() end
      return self
    end
  elseif key == "isCancelled" then
    local d = handleData[h]
    return d and d.cancelled or false
  elseif key == "kind" then
    local d = handleData[h]
    return d and d.kind
  end
  return nil
end
HandleMT.__newindex = function() raise("a handle is read-only") end
HandleMT.__tostring = function(h)
  local d = handleData[h]
  return fmt("Handle(%s%s)", d and d.kind or "?", d and d.cancelled and ", cancelled" or "")
end
-- A handle whose cancel removes `entry` from the array `l` (by identity).
-- A handle that removes `entry` from the list `l`; a list left empty leaves `owner[key]` too
-- (onReceive with a new name each time kept one empty list per name, also after cancelling:
-- found by an adversary probe).
local function listHandle(kind, l, entry, owner, key)
  local h = setmetatable({}, HandleMT)
  handleData[h] = { kind = kind, cancelled = false, remove = function()
    for i = #l, 1, -1 do if l[i] == entry then tremove(l, i) end end
    if owner and l[1] == nil and owner[key] == l then owner[key] = nil end
  end }
  return h
end
local function makeHandle(kind, remove)
  local h = setmetatable({}, HandleMT)
  handleData[h] = { kind = kind, cancelled = false, remove = remove }
  return h
end

-- Handles that stand for their node: what onAppear, onDisappear, onPreferenceChange and
-- onAsyncTask* return. A registration handle (h:cancel(), h.isCancelled) that also chains as the
-- node did (h:onDisappear(g), View "A":onAppear(f) as a child, add, mount, tap…), equals its node
-- (h == node) and prints as it. A userdata whose user value is the node (K.nodeHandle).
local newNodeHandle, handleNode = K.nodeHandle, K.handleNode
local NodeHandleMT = { __name = "responder.handle", __metatable = "locked" }
local function cancelHandle(self)
  local d = handleData[self]
  if not d then argerr(0, "cancel", "handle", self) end
  if not d.cancelled then d.cancelled = true; d.remove() end
  return self
end
NodeHandleMT.__index = function(h, key)
  if key == "cancel" then return cancelHandle
  elseif key == "isCancelled" then
    local d = handleData[h]
    return d and d.cancelled or false
  end
  local node = handleNode(h)
  local v = node[key]
  if type(v) ~= "function" then return v end
  -- a method of the node: called on the handle, it runs on the node
  return function(self, ...)
    if rawequal(self, h) then self = node end
    return v(self, ...)
  end
end
NodeHandleMT.__newindex = function(h, key, value)
  -- (nodes take no assignment: the node's own message, placed at the assignment)
  local node = handleNode(h)
  local ok, e = pcall(function() node[key] = value end)
  if not ok then
    if type(e) == "string" then raise((e:gsub("^[^\n]-:%d+: ", "", 1))) end
    error(e, 0)
  end
end
NodeHandleMT.__eq = function(a, b) return rawequal(handleNode(a) or a, handleNode(b) or b) end
NodeHandleMT.__tostring = function(h) return tostring(handleNode(h)) end
NodeHandleMT.__call = function(h, ...) return handleNode(h)(...) end
local function nodeHandle(kind, node, remove)
  local h = newNodeHandle(node)
  handleData[h] = { kind = kind, cancelled = false, remove = remove }
  return h
end
-- removes the last occurrence of `entry` in the array `l` (the same function registered twice
-- is two registrations: a handle cancels one); `l.cuts` counts the removals (see eachLive)
local function removeOne(l, entry)
  for i = #l, 1, -1 do
    if l[i] == entry then
      tremove(l, i)
      l.cuts = (l.cuts or 0) + 1
      return
    end
  end
end
local function entryHandle(kind, node, l, entry)
  return nodeHandle(kind, node, function() removeOne(l, entry) end)
end

-- Environment ------------------------------------------------------------------------------
local NIL = {}
local function environment(node, key, value)
  checkNode(node, "environment")
  if key == nil or key ~= key then argerr(1, "environment", "key (not nil or NaN)", key) end
  local env = list(kit(node), "env")
  if value == nil then env[key] = NIL else env[key] = value end
  return node
end
local function env(node, key, default)
  checkNode(node, "env")
  if key == nil then argerr(1, "env", "key", key) end
  local n = node
  while n do
    local k = kitOf(n)
    local e = k and k.env
    if e then
      local v = e[key]
      if v == NIL then return nil elseif v ~= nil then return v end
    end
    n = n.parent
  end
  return default
end

-- Preferences ------------------------------------------------------------------------------
local PrefMT = { __name = "responder.preference", __metatable = "locked" }
local isPref = setmetatable({}, { __mode = "k" })
PrefMT.__tostring = function(p) return "Preference(" .. p.name .. ")" end
local function lastWins(_, nxt) return nxt end
local prefKeys = { default = true, reduce = true }
local function Preference(name, opts)
  if type(name) ~= "string" then argerr(1, "Preference", "name (string)", name) end
  -- a preference key needs its spec, as SwiftUI's PreferenceKey needs defaultValue and reduce
  if type(opts) ~= "table" then
    raise(fmt("bad argument #2 to 'Preference' (spec { default = v, reduce = function(acc, nxt) } expected, got %s)",
      opts == nil and "no value" or kindName(opts)))
  end
  for k in next, opts do
    if not prefKeys[k] then
      local hint = type(k) == "string" and (k:lower():find("def", 1, true) and " (did you mean 'default'?)"
        or k:lower():find("red", 1, true) and " (did you mean 'reduce'?)") or ""
      raise(fmt("unknown key %s in Preference's spec (expected default, reduce)%s",
        type(k) == "string" and "'" .. k .. "'" or tostring(k), hint))
    end
  end
  local reduce = opts.reduce
  if reduce ~= nil and not callable(reduce) then
    raise(fmt("bad field 'reduce' in Preference (function expected, got %s)", kindName(reduce)))
  end
  local p = setmetatable({ name = name, default = opts.default, reduce = reduce or lastWins }, PrefMT)
  isPref[p] = true
  return p
end
local function checkPref(n, fname, p)
  if not isPref[p] then
    argerr(n, fname, "preference", p, 1)
  end
end
local function initial(d)
  if type(d) ~= "table" or getmetatable(d) ~= nil then return d end
  local c = {}
  for k, v in next, d do c[k] = v end
  return c
end
-- the subtree's value: the default, reduced with every value set in the subtree, in document order
local function reduced(node, P)
  local acc, reduce, nodes = initial(P.default), P.reduce, subtree(node)
  for i = 1, #nodes do
    local prefs = kitOf(nodes[i]).prefs
    local v = prefs and prefs[P]
    if v ~= nil then
      local r = reduce(acc, v)
      if r ~= nil then acc = r end
    end
  end
  return acc
end
-- whether `e` is still in the list `l` (a handler a handle cancelled before its turn is not)
local function isIn(l, e)
  for x = 1, #l do if l[x] == e then return true end end
  return false
end
-- whether the entry `e` of a snapshot of `l` taken when `l.cuts` was `cuts` is still in `l`:
-- looked up only once a handle removed something from `l` (no quadratic walk otherwise)
local function stillIn(l, cuts, e) return l.cuts == cuts or isIn(l, e) end
-- calls `f(node, e, ...)` for each entry of `l` as it is now that is still there at its turn
local function eachLive(l, node, f, ...)
  local snapshot, cuts = { unpack(l) }, l.cuts
  for i = 1, #snapshot do
    local e = snapshot[i]
    if stillIn(l, cuts, e) then f(node, e, ...) end
  end
end
local function fireHandlers(node, always, P)
  local k = kitOf(node)
  local hs = k and k.prefHandlers
  if not hs then return end
  local snapshot, cuts = { unpack(hs) }, hs.cuts
  for i = 1, #snapshot do
    local h = snapshot[i]
    if (P == nil or h.P == P) and stillIn(hs, cuts, h) then
      invoke(node, function()
        local v = reduced(node, h.P)
        if always or not h.has or not same(v, h.last) then
          h.last, h.has = v, true
          h.fn(v)
        end
      end)
    end
  end
end
local function changedFrom(node, P)
  local n = node
  while n do
    fireHandlers(n, false, P)
    n = n.parent
  end
end
local function preference(node, P, value)
  checkNode(node, "preference")
  checkPref(1, "preference", P)
  list(kit(node), "prefs")[P] = value
  if node.mounted then changedFrom(node, P) end
  return node
end
local function preferenceValue(node, P)
  checkNode(node, "preferenceValue")
  checkPref(1, "preferenceValue", P)
  return reduced(node, P)
end
local function onPreferenceChange(node, P, fn)
  checkNode(node, "onPreferenceChange")
  checkPref(1, "onPreferenceChange", P)
  checkFn(2, "onPreferenceChange", fn)
  local h = { P = P, fn = fn, has = false }
  if node.mounted then h.last, h.has = reduced(node, P), true end
  local hs = list(kit(node), "prefHandlers")
  hs[#hs + 1] = h
  return entryHandle("onPreferenceChange", node, hs, h)
end

-- Notifications, observation, appear and disappear ----------------------------------------
local NOOBJECT = {}
local function objectOption(n, fname, opts)
  if opts == nil then return NOOBJECT end
  if type(opts) ~= "table" then argerr(n, fname, "options table", opts, 1) end
  for k in next, opts do
    if k ~= "object" then
      raise(fmt("bad option '%s' to '%s' (the only option is 'object')", tostring(k), fname))
    end
  end
  local object = rawget(opts, "object")
  if object == nil then return NOOBJECT end
  return object
end
local function onReceive(node, name, fn, opts)
  checkNode(node, "onReceive")
  if type(name) ~= "string" then argerr(1, "onReceive", "notification name (string)", name) end
  checkFn(2, "onReceive", fn)
  local entry = { fn = fn, object = objectOption(3, "onReceive", opts) }
  local receivers = list(kit(node), "receivers")
  local l = list(receivers, name)
  l[#l + 1] = entry
  return listHandle("onReceive", l, entry, receivers, name)
end
-- post(name, payload [, { object = x }]): handlers get (payload, note) with
-- note = { name, object, payload }; a receiver registered with an object gets only posts
-- with that object (NotificationCenter's `object:` filter).
local function post(...)
  local name, payload, opts = ...
  if type(name) ~= "string" then argerr(1, "post", "notification name (string)", first(...)) end
  local object = objectOption(3, "post", opts)
  local root = M.mounted()
  if not root then return 0 end
  local note = { name = name, payload = payload }
  if object ~= NOOBJECT then note.object = object end
  local nodes, count = subtree(root), 0
  local mark = traceBegin(name)
  for i = 1, #nodes do
    local n = nodes[i]
    local r = kitOf(n).receivers
    local l = r and r[name]
    if l then
      local snapshot = { unpack(l) }
      for j = 1, #snapshot do
        if not n.mounted then break end
        local e = snapshot[j]
        local live = false
        for x = 1, #l do if l[x] == e then live = x; break end end
        if live and (e.object == NOOBJECT or e.object == object) then
          count = count + 1
          traceStep(mark, n, live, invoke(n, e.fn, payload, note))
        end
      end
    end
  end
  traceEnd(mark, root)
  return count
end
-- Observed keys live in a hidden store (so that every assignment reaches __newindex); the other
-- props stay in the table itself, where Swift reads them raw.
local function observe(node, prop, fn)
  checkNode(node, "observe")
  -- (NaN is no table key either)
  if prop == nil or prop ~= prop then argerr(1, "observe", "property name", prop) end
  checkFn(2, "observe", fn)
  local props = node.props
  local mt = getmetatable(props)
  if mt == nil then
    local store, observers = {}, {}
    mt = {
      __index = store,
      __newindex = function(t, key, value)
        local l = observers[key]
        if l == nil then rawset(t, key, value); return end
        local old = store[key]
        store[key] = value
        if not node.mounted then return end
        local snapshot = { unpack(l) }
        for i = 1, #snapshot do
          local e = snapshot[i]
          local live = false
          for x = 1, #l do if l[x] == e then live = true; break end end
          if live then invoke(node, e, value, old) end
        end
      end,
      -- the table's own keys, then the observed ones (one a rawset put in the table too is
      -- given once: with it in both, the walk went from the store back into the table without end)
      __pairs = function(t)
        local inStore = false
        return function(_, k)
          if not inStore then
            local nk, nv = next(t, k)
            if nk ~= nil then return nk, nv end
            inStore, k = true, nil
          end
          local nk, nv = next(store, k)
          while nk ~= nil and rawget(t, nk) ~= nil do nk, nv = next(store, nk) end
          return nk, nv
        end, t, nil
      end,
      store = store, observers = observers,
    }
    setmetatable(props, mt)
  elseif type(mt) ~= "table" or not mt.observers then
    raise("cannot observe " .. tostring(node) .. ".props: it has its own metatable")
  end
  local observers = mt.observers
  if not observers[prop] then
    observers[prop] = {}
    mt.store[prop] = rawget(props, prop)
    rawset(props, prop, nil)
  end
  local l = observers[prop]
  local entry = function(...) return fn(...) end
  l[#l + 1] = entry
  return listHandle("observe", l, entry)
end
local function onAppear(node, fn)
  checkNode(node, "onAppear"); checkFn(1, "onAppear", fn)
  local l = list(kit(node), "appear")
  l[#l + 1] = fn
  return entryHandle("onAppear", node, l, fn)
end
local function onDisappear(node, fn)
  checkNode(node, "onDisappear"); checkFn(1, "onDisappear", fn)
  local l = list(kit(node), "disappear")
  l[#l + 1] = fn
  return entryHandle("onDisappear", node, l, fn)
end
-- `moving`: the node leaves and comes back within one `add` that moves it in the mounted tree;
-- its preference handlers keep their last value then, and fire again only if it changed
local function appearHook(node, moving)
  local k = kitOf(node)
  if not k then return end
  local l = k.appear
  if l then eachLive(l, node, invoke) end
  if k.prefHandlers then fireHandlers(node, not moving) end
end
local function disappearHook(node, moving)
  local k = kitOf(node)
  if not k then return end
  local l = k.disappear
  if l then eachLive(l, node, invoke) end
  local hs = k.prefHandlers
  if hs and not moving then for i = 1, #hs do hs[i].has, hs[i].last = false, nil end end
end
local function structureHook(parent) changedFrom(parent) end

-- shared with async.lua
S.argerr, S.first, S.callable, S.checkNode, S.checkFn, S.kit = argerr, first, callable, checkNode, checkFn, kit
S.list, S.environment, S.env, S.Preference, S.preference = list, environment, env, Preference, preference
S.preferenceValue, S.onPreferenceChange, S.post, S.onReceive, S.observe = preferenceValue, onPreferenceChange, post, onReceive, observe
S.onAppear, S.onDisappear, S.appearHook, S.disappearHook, S.structureHook = onAppear, onDisappear, appearHook, disappearHook, structureHook
S.eachLive = eachLive
S.setLoading, S.makeHandle, S.entryHandle, S.NodeHandleMT = setLoading, makeHandle, entryHandle, NodeHandleMT
S.nodeHandle = nodeHandle
