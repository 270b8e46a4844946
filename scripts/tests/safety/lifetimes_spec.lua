-- Objects a script can keep stay valid for as long as it keeps them (issue 7, item 1).
-- Each test keeps an object past the dispatch (or node) it came from, churns the heap and
-- reads it again: a dangling reference would read garbage or crash the runner.

local Ping = Event "Ping"

local function churn()
  for _ = 1, 3 do
    collectgarbage()
    local junk = {}  -- luacheck: ignore 241 (garbage for the collector)
    for i = 1, 500 do junk[i] = View("Junk" .. i) { View "Inner" } end
    local other = View "Other"
    other:handleEvent(Ping, function() end)
    other:trigger(Ping())
  end
  collectgarbage()
  collectgarbage()
end

describe("ctx outlives its dispatch", function()
  it("keeps node, origin and path of a responder's ctx", function()
    local saved
    do
      local root = View "Root" { View "Mid" { View "Leaf" } }
      root:handleEvent(Ping, function(_, ctx) saved = ctx end)
      root:find("Leaf"):trigger(Ping())
    end
    churn()
    assert.equal("Root", tostring(saved.node))
    assert.equal("Leaf", tostring(saved.origin))
    local path = saved.path
    assert.equal(3, #path)
    assert.equal("Leaf", tostring(path[1]))
    assert.equal("Mid", tostring(path[2]))
    assert.equal("Root", path[3].name)
    assert.equal(saved.node, path[3])
    assert.equal(saved.origin, path[1])
    assert.equal(path[2], path[1].parent)
    assert.equal("ctx(node: Root, origin: Leaf)", tostring(saved))
  end)

  it("keeps a ctx after the tree was changed and its nodes dropped", function()
    local saved
    local root = View "Root" { View "Leaf" { id = "x" } }
    root:receiveEvent(function(_, ctx) saved = ctx; return true end)
    root:find("#x"):trigger(Ping())
    root:find("#x"):remove()
    root = nil
    churn()
    assert.equal("Root", saved.node.name)
    assert.equal("x", saved.origin.id)
    assert.is_nil(saved.origin.parent)
  end)

  it("keeps a subscriber's ctx", function()
    local saved
    do
      local root = View "Root" { View "Sub" }
      local pub = root:publisher(Ping)
      root.children[1]:subscribe(Ping, function(_, ctx) saved = ctx end)
      assert.equal(1, pub(Ping()))
    end
    churn()
    assert.equal("Sub", saved.node.name)
    assert.equal("Root", saved.origin.name)
    assert.equal(2, #saved.path)
    assert.equal("Root", saved.path[1].name)
    assert.equal("Sub", saved.path[2].name)
  end)

  it("keeps a ctx from a nested dispatch", function()
    local inner
    local Pong = Event "Pong"
    local root = View "Root" { View "A" { View "B" } }
    root:handleEvent(Pong, function(_, ctx) inner = ctx end)
    root:find("A"):handleEvent(Ping, function(_, ctx) ctx.origin:trigger(Pong()) end)
    root:find("B"):trigger(Ping())
    root = nil
    churn()
    assert.equal("Root", inner.node.name)
    assert.equal("B", inner.origin.name)
  end)
end)

describe("outcomes and traces outlive their dispatch", function()
  it("keeps an outcome, its trace and its nodes after the tree is dropped", function()
    local outcome
    do
      local root = View "Root" { View "Leaf" }
      root:handleEvent(Ping, function() end, { once = true })
      outcome = root.children[1]:trigger(Ping())
    end
    churn()
    assert.is_true(outcome.handled)
    assert.equal("Root", outcome.by.name)
    local trace = outcome.trace
    assert.equal(1, #trace)
    assert.equal("Root", trace[1].node.name)
    assert.equal("handled", trace[1].decision)
    assert.matches("handleEvent%(Ping%)", tostring(trace))
  end)

  it("keeps a trace whose responders were removed", function()
    local root = View "Root"
    root:receiveEvent(Ping, function() return false end, { id = "r" })
    root:handleEvent(function() end, { id = "h" })
    local trace = root:trigger(Ping()).trace
    root:removeResponder("r")
    root:removeResponder("h")
    root = nil
    churn()
    assert.equal(2, #trace)
    assert.equal("receiveEvent", trace[1].responder)
    assert.equal("receiveEvent(Ping)", trace[1].label)
    assert.equal("handleEvent", trace[2].responder)
  end)
end)

describe("values kept by the script", function()
  -- B is raised by the child's handler for every error reported from the child, each time
  -- with that error as its new cause; `after(msg, outcome)` runs after each report
  local function reraised(after)
    local E = Error "E"
    local root = View "Root" { View "Child" }
    local child = root.children[1]
    local B = E { msg = "b" }
    child:handleError(function() error(B) end)
    root:handleError(function() end)
    for _, msg in ipairs { "a", "c", "d" } do after(msg, child:report(E { msg = msg })) end
    return B, root, E
  end

  it("an error re-raised with a new cause stays valid after its old dispatches are gone", function()
    local B, root, E = reraised(function() churn() end)
    for i = 1, 300 do root:report(E { i = i }) end
    churn()
    local o = root:report(B)
    assert.is_true(o.handled)
    assert.equal(B, o.value)
    assert.equal("E", o.value.cause.name)
    assert.equal("d", o.value.cause.msg)
  end)

  it("an error re-raised with a new cause while the outcomes of its old dispatches are kept has its newest cause", function()
    -- the kept outcomes keep the Swift value made at the first raise (with cause "a"): it must
    -- not be handed out again once the userdata was given a newer cause
    local kept = {}
    local B, root = reraised(function(_, o) kept[#kept + 1] = o end)
    assert.equal("d", B.cause.msg)
    local o = root:report(B)
    assert.equal(B, o.value)
    assert.equal("d", o.value.cause.msg)
    assert.equal(3, #kept)
  end)
end)

describe("functions stored on nodes", function()
  it("a subscriber whose node another subscriber dropped during the publication", function()
    local P = Event "P"
    local ran = {}
    local root = View "Root" { View "A", View "B" }
    local pub = root:publisher(P, { destination = "allLevels" })
    local function drop() if root.children[2] then root.children[2]:remove() end end
    root.children[1]:subscribe(P, function()
      ran[#ran + 1] = "A"
      drop()
      churn()
    end)
    root.children[2]:subscribe(P, function() ran[#ran + 1] = "B" end)
    pub(P())
    churn()
    -- the publication's subscribers are fixed when it starts (B's node stays anchored during it)
    assert.same({ "A", "B" }, ran)
    assert.equal(1, #root.children)
    assert.equal(1, pub(P()))
    assert.same({ "A", "B", "A" }, ran)
  end)

  it("responders removed while their trace is kept still describe themselves", function()
    local root = View "Root"
    for i = 1, 20 do root:receiveEvent(function() end, { id = "r" .. i }) end
    root:handleEvent(function() end, { id = "h" })
    local trace = root:trigger(Ping()).trace
    for i = 1, 20 do root:removeResponder("r" .. i) end
    root:removeResponder("h")
    root = nil
    churn()
    assert.equal(21, #trace)
    assert.equal("receiveEvent", trace[20].responder)
    assert.equal("handleEvent", trace[21].responder)
  end)
end)

describe("objects a __gc metamethod resurrects", function()
  it("a node whose finalizer ran raises a clear error instead of reading freed memory", function()
    local keep
    do
      local n = View "Resurrected" { View "Kid" }
      n:handleEvent(function() end)
      setmetatable({}, { __gc = function() keep = n end })
    end
    churn()
    assert.is_not_nil(keep)
    -- depending on the finalizer order the node's own finalizer may not have run yet
    local ok, err = pcall(function() return keep.name end)
    if not ok then
      assert.matches("node used after it was finalized", err)
      assert.equal("finalized node", tostring(keep))
      local ok2, err2 = pcall(function() return View "X":add(keep) end)
      assert.is_false(ok2)
      assert.matches("finalized node", err2)
    else
      assert.equal("Resurrected", err)
    end
  end)

  it("values, types, outcomes, traces and contexts kept by a finalizer", function()
    local kept
    do
      -- the resurrecting table is marked first, so the other finalizers run before it
      local box = {}
      setmetatable({}, { __gc = function() kept = box end })
      local T = Event "Temp"
      local root = View "Root"
      local ctx
      root:handleEvent(function(_, c) ctx = c end)
      local o = root:trigger(T { x = 1 })
      box.value, box.type, box.outcome, box.trace, box.ctx, box.root = T { y = 2 }, T, o, o.trace, ctx, root
    end
    churn()
    assert.is_not_nil(kept)
    local function either(expected, f)
      local ok, got = pcall(f)
      if ok then
        assert.is_true(got == expected or got == "finalized " .. expected:match("^(%a+)") or got == nil,
          "unexpected " .. tostring(got))
      else
        assert.matches("finalized", got)
      end
    end
    assert.equal("Temp{y=2}", tostring(kept.value))
    assert.equal(2, kept.value.y)
    either("outcome", function() return tostring(kept.outcome):match("^handled") and "outcome" or tostring(kept.outcome) end)
    either("trace", function() return tostring(kept.trace):match("^event") and "trace" or tostring(kept.trace) end)
    either("context", function() return tostring(kept.ctx):match("^ctx") and "context" or tostring(kept.ctx) end)
    either("node", function() return tostring(kept.root) == "Root" and "node" or tostring(kept.root) end)
    either("true", function() return tostring(kept.outcome.handled) end)
    either("Root", function() return kept.ctx.node.name end)
    either("Root", function() return kept.root.name end)
    local ok, err = pcall(function() return View "N":handleEvent(function() end):trigger(kept.value).handled end)
    assert.is_true(ok and err == true or tostring(err):match("finalized") ~= nil)
  end)
end)

describe("the node identity cache", function()
  -- A node userdata owns a key of the cache from its making to its finalizer, which gives it
  -- back for newer nodes: a node whose userdata was collected while the engine kept the node
  -- gets a new userdata (and key), never the one of a node that reused its old key.
  it("gives a node whose userdata was collected a new one, with its identity, and never another node's", function()
    local outcome
    do
      local root = View "Root" { id = "top", View "Leaf" { id = "leaf" } }
      root:handleEvent(Ping, function() end)
      outcome = root.children[1]:trigger(Ping())
    end
    churn()  -- only the trace holds the tree now: its userdata are gone, their keys reused
    local live = {}
    for i = 1, 300 do live[i] = View("Live" .. i) end
    local by = outcome.by
    assert.equal("Root", by.name)
    assert.equal(by, outcome.by)
    assert.equal(by, outcome.trace[1].node)
    local leaf = by.children[1]
    assert.equal("Leaf", leaf.name)
    assert.equal(by, leaf.parent)
    assert.equal(leaf, by:find("#leaf"))  -- found by id again once it has a userdata
    for i = 1, 300 do assert.equal("Live" .. i, live[i].name) end
    live = nil
    churn()
    assert.equal(by, outcome.by)
    assert.equal(leaf, outcome.by.children[1])
    assert.equal("top", by.id)
  end)
end)

describe("tree links", function()
  it("a child outlives its parent", function()
    local kid
    do
      local root = View "Root" { View "Mid" { View "Kid" } }
      kid = root:find("Kid")
    end
    churn()
    -- holding any node keeps its whole tree
    assert.equal("Mid", kid.parent.name)
    assert.equal("Root", kid.parent.parent.name)
    local mid = kid.parent
    mid:remove()
    churn()
    assert.is_nil(mid.parent)
    assert.equal("Mid > Kid", kid:path())
  end)

  it("a responder that dismantles its tree during the dispatch", function()
    local root = View "Root" { View "A" { View "B" { View "C" } } }
    local seen = {}
    local a = root:find("A")
    a:receiveEvent(function(_, ctx)
      seen[#seen + 1] = "A1"
      for _, r in ipairs(ctx.node:responders()) do if r.id then ctx.node:removeResponder(r.id) end end
      ctx.origin:remove()
      ctx.node:remove()
      root = nil  -- the rest of the path is now reachable from nowhere in Lua
      a = nil
      churn()
      return false
    end, { id = "a1" })
    a:receiveEvent(function() seen[#seen + 1] = "A2" end, { id = "a2" })
    a.parent:handleEvent(function(_, ctx) seen[#seen + 1] = "Root:" .. ctx.node.name end)
    local c = root:find("C")
    local weakRoot = setmetatable({ root }, { __mode = "v" })
    local o = c:trigger(Ping())
    churn()
    -- the detached part of the path stayed anchored during the dispatch, not after it
    assert.is_nil(weakRoot[1])
    assert.same({ "A1", "Root:Root" }, seen)
    assert.is_true(o.handled)
    assert.equal("Root", o.by.name)
    assert.equal(2, #o.trace)
    assert.equal("A", o.trace[1].node.name)
    assert.is_nil(o.trace[1].node.parent)
  end)
end)
