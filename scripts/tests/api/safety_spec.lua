-- Root policy, safety levels, violation kinds and records, declarations (SPEC §2.5, §2.6).

local ItemSelected = Event "ItemSelected"
local Base = Event "Base"
local Sub = Event("Sub", Base)
local Other = Event "Other"
local LoadFailed = Error "LoadFailed"
local NetErr = Error "NetErr"
local Timeout = Error("Timeout", NetErr)

-- "file:line" of the line that calls here()
local function here()
  local _, e = pcall(error, "@", 3)
  return (e:match("^(.-:%d+): @"))
end

local function tree()
  local root = View "Root" { View "Grid" { View "Item" { id = "b" } } }
  return root, root:find("Grid"), root:find("#b")
end

local function only(kind)
  local ws = responder.warnings()
  assert.equal(1, #ws, "expected exactly one warning")
  assert.equal(kind, ws[1].kind)
  return ws[1]
end

describe("relaxed (default)", function()
  it("an unhandled event is recorded with kind, message, node, value, location", function()
    local root, grid, item = tree()
    local ev = ItemSelected { item = "b" }
    local o, loc = item:trigger(ev), here()
    assert.unhandled(o)
    local w = only("unhandledEvent")
    assert.equal('unhandled event ItemSelected{item="b"} from Item#b (path: Item#b > Grid > Root)', w.message)
    assert.equal(item, w.node)
    assert.equal(ev, w.value)
    assert.equal(loc, w.location)
  end)

  it("an unhandled error is recorded", function()
    local root, grid, item = tree()
    local o, loc = item:report(LoadFailed { code = 1 }), here()
    assert.unhandled(o)
    local w = only("unhandledError")
    assert.equal("unhandled error LoadFailed{code=1} from Item#b (path: Item#b > Grid > Root)", w.message)
    assert.equal(item, w.node)
    assert.equal(LoadFailed, w.value.type)
    assert.equal(loc, w.location)
  end)

  it("the value recorded is the final value after transforms", function()
    local root, grid, item = tree()
    grid:transformEvent(function() return Other { t = 1 } end)
    item:trigger(ItemSelected())
    local w = only("unhandledEvent")
    assert.equal(Other, w.value.type)
    assert.equal(item, w.node)
  end)

  it("inside a responder, the location is the responder's line that triggered", function()
    local root, grid, item = tree()
    local innerLoc
    root:handleEvent(ItemSelected, function(e, ctx)
      local _, l = item:trigger(Other()), here(); innerLoc = l
    end)
    item:trigger(ItemSelected())
    local w = only("unhandledEvent")
    assert.equal(Other, w.value.type)
    assert.equal(innerLoc, w.location)
  end)

  it("a handled dispatch records nothing", function()
    local root, grid, item = tree()
    root:handleEvent(function() end)
    root:handleError(function() end)
    assert.no_warnings(function()
      item:trigger(ItemSelected())
      item:report(LoadFailed())
    end)
  end)

  it("clearWarnings empties the list", function()
    local root = View "Root"
    root:trigger(Other())
    assert.equal(1, #responder.warnings())
    responder.clearWarnings()
    assert.equal(0, #responder.warnings())
  end)

  it("assert.warns sees an unhandledEvent", function()
    local root = View "Root"
    assert.warns("unhandledEvent", function() root:trigger(Other()) end)
  end)
end)

describe("strict", function()
  it("an unhandled event raises from trigger and records nothing", function()
    local root, grid, item = tree()
    root:safetyLevel("strict")
    local ok, err = pcall(function() item:trigger(ItemSelected { item = "b" }) end)
    assert.is_false(ok)
    assert.matches('unhandled event ItemSelected{item="b"} from Item#b %(path: Item#b > Grid > Root%)', tostring(err), 1)
    assert.equal(0, #responder.warnings())
  end)

  it("the error is located at the calling line", function()
    local root = View "Root"
    root:safetyLevel("strict")
    local loc, f = here(), function() root:trigger(Other()) end
    local ok, err = pcall(f)
    assert.is_false(ok)
    assert.equal(loc .. ": unhandled event Other{} from Root (path: Root)", tostring(err))
  end)

  it("an unhandled error raises from report", function()
    local root = View "Root"
    root:safetyLevel("strict")
    assert.error_matches(function() root:report(LoadFailed()) end, "unhandled error LoadFailed{}")
  end)

  it("no error responder can catch a strict violation raised in a nested dispatch", function()
    local root, grid, item = tree()
    root:safetyLevel("strict")
    local log = {}
    item:handleEvent(ItemSelected, function(e, ctx)
      log[#log + 1] = "outer"
      ctx.node:trigger(Other())   -- nobody handles Other: strict violation
      log[#log + 1] = "after nested trigger"
    end)
    item:handleError(function(e) log[#log + 1] = "item error responder" end)
    root:handleError(function(e) log[#log + 1] = "root error responder" end)
    assert.error_matches(function() item:trigger(ItemSelected()) end, "unhandled event Other{}")
    assert.same({ "outer" }, log)
  end)

  it("no pcall inside a responder can catch a strict violation", function()
    local root = View "Root"
    root:safetyLevel("strict")
    local afterPcall = false
    root:receiveEvent(ItemSelected, function(e, ctx)
      pcall(function() ctx.node:trigger(Other()) end)
      afterPcall = true
      return true
    end)
    assert.error_matches(function() root:trigger(ItemSelected()) end, "unhandled event Other{}")
    assert.is_false(afterPcall)
  end)

  it("--safety style root default is overridden by a nearer setting", function()
    local root, grid, item = tree()
    root:safetyLevel("strict")
    grid:safetyLevel("relaxed")
    local o = item:trigger(Other())           -- starts under grid: relaxed
    assert.unhandled(o)
    assert.equal(1, #responder.warnings())
    assert.has_error(function() root:trigger(Other()) end) -- starts at root: strict
  end)

  it("the level in effect at the origin applies, not the root's", function()
    local root, grid, item = tree()
    item:safetyLevel("strict")
    assert.has_error(function() item:trigger(Other()) end)
    local o = grid:trigger(Other())
    assert.unhandled(o)
    assert.equal(1, #responder.warnings())
  end)

  it("a strict mount check raises from mount", function()
    local root, grid, item = tree()
    root:safetyLevel("strict")
    item:triggers(ItemSelected)
    assert.error_matches(function() mount(root) end, "missing responder")
  end)

  it("a strict undeclared event raises from trigger", function()
    local root, grid, item = tree()
    root:safetyLevel("strict")
    grid:triggers(ItemSelected)
    root:handleEvent(function() end)
    assert.error_matches(function() item:trigger(Other()) end, "undeclared event Other{}")
  end)
end)

describe("disabled", function()
  it("records and prints nothing, the outcome still says unhandled", function()
    local root, grid, item = tree()
    root:safetyLevel("disabled")
    assert.no_warnings(function()
      local o = item:trigger(ItemSelected())
      assert.unhandled(o)
      assert.is_false(o.handled)
      assert.unhandled(item:report(LoadFailed()))
    end)
  end)

  it("a relaxed subtree under a disabled root records again", function()
    local root, grid, item = tree()
    root:safetyLevel("disabled")
    grid:safetyLevel("relaxed")
    root:trigger(Other())
    assert.equal(0, #responder.warnings())
    item:trigger(Other())
    assert.equal(1, #responder.warnings())
  end)
end)

describe("declarations (triggers / reports)", function()
  it("never consume anything", function()
    local root = View "Root"
    root:triggers(Other)
    root:reports(LoadFailed)
    root:safetyLevel("disabled")
    local o = root:trigger(Other())
    assert.unhandled(o)
    assert.unhandled(root:report(LoadFailed()))
  end)

  it("an undeclared event is recorded at the declaring node with the triggers line", function()
    local root, grid, item = tree()
    local _, loc = grid:triggers(ItemSelected), here()
    root:handleEvent(function() end)
    local ev = Other()
    item:trigger(ev)
    local w = only("undeclaredEvent")
    assert.equal(grid, w.node)
    assert.equal(ev, w.value)
    assert.equal(loc, w.location)
    assert.matches("Other{}", w.message)
  end)

  it("an undeclared error is recorded at the declaring node with the reports line", function()
    local root, grid, item = tree()
    local _, loc = grid:reports(LoadFailed), here()
    root:handleError(function() end)
    item:report(NetErr())
    local w = only("undeclaredError")
    assert.equal(grid, w.node)
    assert.equal(NetErr, w.value.type)
    assert.equal(loc, w.location)
  end)

  it("a declared ancestor type allows subtypes", function()
    local root, grid, item = tree()
    grid:triggers(Base)
    grid:reports(NetErr)
    root:handleEvent(function() end)
    root:handleError(function() end)
    assert.no_warnings(function()
      item:trigger(Sub())
      item:report(Timeout())
    end)
  end)

  it("declaring a subtype does not allow its parent type", function()
    local root, grid, item = tree()
    grid:triggers(Sub)
    root:handleEvent(function() end)
    assert.warns("undeclaredEvent", function() item:trigger(Base()) end)
  end)

  it("nested triggers declarations in the subtree are aggregated", function()
    local root = View "Root" { View "Outer" { View "Inner" { View "Leaf" } } }
    local outer, inner, leaf = root:find("Outer"), root:find("Inner"), root:find("Leaf")
    inner:triggers(Other)
    outer:triggers(ItemSelected)
    root:handleEvent(function() end)
    assert.no_warnings(function() leaf:trigger(Other()) end)
    assert.warns("undeclaredEvent", function() leaf:trigger(Base()) end)
  end)

  it("nested reports declarations are aggregated too", function()
    local root = View "Root" { View "Outer" { View "Inner" { View "Leaf" } } }
    local outer, inner, leaf = root:find("Outer"), root:find("Inner"), root:find("Leaf")
    inner:reports(NetErr)
    outer:reports(LoadFailed)
    root:handleError(function() end)
    assert.no_warnings(function() leaf:report(Timeout()) end)
  end)

  it("a value only passes declarations that come after it in the path", function()
    local root, grid, item = tree()
    item:triggers(ItemSelected)   -- first entry of item: the value passes it
    root:handleEvent(function() end)
    assert.warns("undeclaredEvent", function() item:trigger(Other()) end)
    responder.clearWarnings()
    -- a transform before the declaration makes the passing value match
    local r2 = View "R2"
    r2:transformEvent(function() return ItemSelected() end)
    r2:triggers(ItemSelected)
    r2:handleEvent(function() end)
    assert.no_warnings(function() r2:trigger(Other()) end)
  end)
end)

describe("explicit responder check at mount (check 4)", function()
  it("records one missingResponder per missing type at the declaring node", function()
    local root, grid, item = tree()
    local _, loc = item:triggers(ItemSelected, Other), here()
    root:handleEvent(function() end) -- untyped: does not count
    mount(root)
    local ws = responder.warnings()
    assert.equal(2, #ws)
    for _, w in ipairs(ws) do
      assert.equal("missingResponder", w.kind)
      assert.equal(item, w.node)
      assert.equal(loc, w.location)
    end
    assert.matches("ItemSelected", ws[1].message .. ws[2].message)
    assert.matches("Other", ws[1].message .. ws[2].message)
  end)

  it("a type declared twice on a node is still one record", function()
    local root, grid, item = tree()
    item:triggers(ItemSelected, ItemSelected)
    item:triggers(ItemSelected)
    mount(root)
    assert.equal(1, #responder.warnings())
    assert.equal(ItemSelected, responder.warnings()[1].type)
  end)

  it("a typed responder at a later position on the same node satisfies it", function()
    local root, grid, item = tree()
    item:triggers(ItemSelected)
    item:handleEvent(ItemSelected, function() end)
    assert.no_warnings(function() mount(root) end)
  end)

  it("a typed responder at an earlier position on the same node does not", function()
    local root, grid, item = tree()
    item:handleEvent(ItemSelected, function() end)
    item:triggers(ItemSelected)
    assert.warns("missingResponder", function() mount(root) end)
  end)

  it("typed receive, handle, transform on an ancestor all count", function()
    for _, register in ipairs {
      function(n) n:receiveEvent(ItemSelected, function() return true end) end,
      function(n) n:handleEvent(ItemSelected, function() end) end,
      function(n) n:transformEvent(ItemSelected, function(e) return e end) end,
    } do
      responder.reset()
      local root, grid, item = tree()
      item:triggers(ItemSelected)
      register(root)
      assert.no_warnings(function() mount(root) end)
    end
  end)

  it("typed error responders satisfy reports", function()
    for _, register in ipairs {
      function(n) n:receiveError(LoadFailed, function() return true end) end,
      function(n) n:handleError(LoadFailed, function() end) end,
      function(n) n:transformError(LoadFailed, function(e) return e end) end,
    } do
      responder.reset()
      local root, grid, item = tree()
      item:reports(LoadFailed)
      register(grid)
      assert.no_warnings(function() mount(root) end)
    end
  end)

  it("a typed catchError counts (a deliberate difference from the original)", function()
    local root, grid, item = tree()
    item:reports(LoadFailed)
    grid:catchError(LoadFailed, function() return Other() end)
    assert.no_warnings(function() mount(root) end)
  end)

  it("an untyped catchError does not count", function()
    local root, grid, item = tree()
    item:reports(LoadFailed)
    grid:catchError(function() return Other() end)
    assert.warns("missingResponder", function() mount(root) end)
  end)

  it("a typed responder for a parent type satisfies its declared subtypes", function()
    local root, grid, item = tree()
    item:triggers(Sub)
    item:reports(Timeout)
    root:handleEvent(Base, function() end)
    root:handleError(NetErr, function() end)
    assert.no_warnings(function() mount(root) end)
  end)

  it("a responder for a subtype does not satisfy the parent type", function()
    local root, grid, item = tree()
    item:triggers(Base)
    root:handleEvent(Sub, function() end)
    assert.warns("missingResponder", function() mount(root) end)
  end)

  it("a typed responder on a descendant does not count", function()
    local root, grid, item = tree()
    grid:triggers(ItemSelected)
    item:handleEvent(ItemSelected, function() end)
    assert.warns("missingResponder", function() mount(root) end)
  end)

  it("requireExplicitResponders(false) turns the check off for the subtree", function()
    local root, grid, item = tree()
    item:triggers(ItemSelected)
    item:reports(LoadFailed)
    grid:requireExplicitResponders(false)
    assert.no_warnings(function() mount(root) end)
  end)

  it("requireExplicitResponders() without an argument reads the setting in effect, as safetyLevel() does", function()
    local root, grid, item = tree()
    assert.is_true(item:requireExplicitResponders())
    grid:requireExplicitResponders(false)
    assert.is_false(item:requireExplicitResponders())
    assert.is_false(grid:requireExplicitResponders())  -- (it turned the check back on)
    assert.is_true(root:requireExplicitResponders())
    assert.error_matches(function() grid:requireExplicitResponders(nil) end,
      "bad argument #1 to 'requireExplicitResponders' (boolean expected, got nil)", nil, true)
  end)

  it("requireExplicitResponders(true) nearer wins over false higher up", function()
    local root, grid, item = tree()
    item:triggers(ItemSelected)
    root:requireExplicitResponders(false)
    item:requireExplicitResponders(true)
    assert.warns("missingResponder", function() mount(root) end)
  end)

  it("the level at the declaring node applies", function()
    local root, grid, item = tree()
    item:triggers(ItemSelected)
    item:safetyLevel("disabled")
    root:safetyLevel("strict")
    assert.no_warnings(function() mount(root) end)
  end)

  it("add into a mounted tree checks the new subtree", function()
    local root = View "Root"
    mount(root)
    assert.equal(0, #responder.warnings())
    local child = View "Child"
    child:triggers(Other)
    assert.warns("missingResponder", function() root:add(child) end)
  end)

  it("add into an unmounted tree does not check", function()
    local root = View "Root"
    local child = View "Child"
    child:triggers(Other)
    assert.no_warnings(function() root:add(child) end)
  end)
end)

describe("subscriber without publisher (check 5)", function()
  it("is recorded at the subscriber with the subscribe line", function()
    local root, grid, item = tree()
    local _, loc = item:subscribe(Other, function() end), here()
    mount(root)
    local w = only("subscriberWithoutPublisher")
    assert.equal(item, w.node)
    assert.equal(loc, w.location)
    assert.matches("Other", w.message)
  end)

  it("a publisher above satisfies it", function()
    local root, grid, item = tree()
    item:subscribe(Other, function() end)
    root:publisher(Other)
    assert.no_warnings(function() mount(root) end)
  end)

  it("a publisher for another type does not", function()
    local root, grid, item = tree()
    item:subscribe(Other, function() end)
    root:publisher(ItemSelected)
    assert.warns("subscriberWithoutPublisher", function() mount(root) end)
  end)

  it("a publisher of a subtype or a supertype satisfies it: both can reach it (found by an acceptance probe)", function()
    local Shake = Event "Shake"
    local HardShake = Event("HardShake", Shake)
    local root, _, item = tree()
    item:subscribe(Shake, function() end)
    local pub = root:publisher(HardShake)
    assert.no_warnings(function() mount(root) end)
    assert.equal(1, pub(HardShake {}))
    local root2, _, item2 = tree()
    item2:subscribe(HardShake, function() end)
    local pub2 = root2:publisher(Shake)
    assert.no_warnings(function() mount(root2) end)
    assert.equal(1, pub2(HardShake {}))
    -- a sibling type reaches nothing, and still warns
    local Soft = Event("SoftShake", Shake)
    local root3, _, item3 = tree()
    item3:subscribe(HardShake, function() end)
    root3:publisher(Soft)
    assert.warns("subscriberWithoutPublisher", function() mount(root3) end)
  end)

  it("under strict it raises from mount", function()
    local root, grid, item = tree()
    root:safetyLevel("strict")
    item:subscribe(Other, function() end)
    assert.error_matches(function() mount(root) end, "publisher")
  end)
end)

describe("strict violations inside finalizers", function()
  it("reach the script once the finalizer has returned (Lua only warns about errors in __gc)", function()
    local E = Event "FinalizerEvent"
    local r = View "R"
    r:safetyLevel("strict")
    local ok, err = pcall(function()
      setmetatable({}, { __gc = function() r:trigger(E {}) end })
      collectgarbage()
      local x = 0
      for i = 1, 10 do x = x + i end
      return x
    end)
    assert.is_false(ok)
    assert.matches("unhandled event FinalizerEvent{} from R", tostring(err))
    -- raised once: what follows runs
    assert.equal(3, 1 + 2)
  end)
end)
