-- Downward publishing (SPEC §2.7).

local Shake = Event "Shake"
local Other = Event "Other"
local Base = Event "Base"
local Sub = Event("Sub", Base)  -- luacheck: ignore 211 (a subtype of Base exists)

-- Root
--   A#a            (level 1)
--     A1#a1        (level 2)
--       A2#a2      (level 3)
--   B#b            (level 1)
--     B1#b1        (level 2)
local function world(log, subType)
  local root = View "Root" {
    View "A" { id = "a", View "A1" { id = "a1", View "A2" { id = "a2" } } },
    View "B" { id = "b", View "B1" { id = "b1" } },
  }
  for _, id in ipairs { "a", "a1", "a2", "b", "b1" } do
    root:find("#" .. id):subscribe(subType or Shake, function(e) log[#log + 1] = id end)
  end
  return root
end

describe("publisher destinations", function()
  it("firstLevel reaches the outermost subscribers in document order", function()
    local log = {}
    local root = world(log)
    local pub = root:publisher(Shake, { destination = "firstLevel" })
    assert.equal(2, pub(Shake()))
    assert.same({ "a", "b" }, log)
  end)

  it("allLevels reaches every subscriber in document order", function()
    local log = {}
    local root = world(log)
    local pub = root:publisher(Shake, { destination = "allLevels" })
    assert.equal(5, pub:publish(Shake()))
    assert.same({ "a", "a1", "a2", "b", "b1" }, log)
  end)

  it("lastLevel (default) reaches every subscriber at the deepest level present", function()
    local log = {}
    local root = world(log)
    local pub = root:publisher(Shake)
    assert.equal(1, pub(Shake()))
    assert.same({ "a2" }, log)
  end)

  it("lastLevel reaches all subscribers sharing the deepest level", function()
    local log = {}
    local root = View "Root" { View "X" { id = "x" }, View "Y" { id = "y" } }
    root:find("#x"):subscribe(Shake, function() log[#log + 1] = "x" end)
    root:find("#y"):subscribe(Shake, function() log[#log + 1] = "y" end)
    local pub = root:publisher(Shake, { destination = "lastLevel" })
    assert.equal(2, pub(Shake()))
    assert.same({ "x", "y" }, log)
  end)

  it("only subscribers below the publisher are reached", function()
    local log = {}
    local root = View "Root" { View "Left" { View "L1" }, View "Right" { View "R1" } }
    for _, name in ipairs { "L1", "R1" } do
      root:find(name):subscribe(Shake, function() log[#log + 1] = name end)
    end
    local pub = root:find("Right"):publisher(Shake, { destination = "allLevels" })
    assert.equal(1, pub(Shake()))
    assert.same({ "R1" }, log)
  end)

  it("subscribers of other types are not reached", function()
    local log = {}
    local root = world(log, Other)
    local pub = root:publisher(Shake, { destination = "allLevels" })
    assert.equal(0, pub(Shake()))
    assert.same({}, log)
  end)

  it("the subscriber receives the event", function()
    local root = View "Root" { View "Leaf" }
    local got
    root:find("Leaf"):subscribe(Shake, function(e) got = e end)
    local ev = Shake { strength = 3 }
    root:publisher(Shake)(ev)
    assert.equal(3, got.strength)
  end)
end)

describe("published events", function()
  it("never bubble to responders", function()
    local log = {}
    local root = world(log)
    local bubbled = false
    root:handleEvent(function() bubbled = true end)
    root:find("#a2"):handleEvent(function() bubbled = true end)
    root:publisher(Shake, { destination = "allLevels" })(Shake())
    assert.is_false(bubbled)
    assert.equal(0, #responder.warnings())
  end)

  it("a publish records a trace", function()
    local log = {}
    local root = world(log)
    root:publisher(Shake)(Shake())
    assert.matches("^publish Shake{} from Root", tostring(responder.lastTrace()))
  end)

  it("publishing a value of the wrong type is an error", function()
    local root = world({})
    local pub = root:publisher(Shake)
    assert.error_matches(function() pub(Other()) end, "bad argument #1")
  end)

  it("a publisher given an event of another type names what it was given", function()
    local Quake, OtherThing = Event "Quake", Event "OtherThing"
    local pub = View "Root":publisher(Quake)
    assert.error_matches(function() pub(OtherThing { n = 1 }) end,
      "bad argument #1 to 'publish' (Quake event expected, got OtherThing{n=1})", 1, true)
  end)
end)

describe("removing subscribers", function()
  it("removeResponder removes a subscriber by its id", function()
    local got = {}
    local root = View "Root" { View "Kid" { id = "k" } }
    local kid = root:find("#k")
    kid:subscribe(Shake, function() got[#got + 1] = "s1" end, { id = "s1" })
    kid:subscribe(Shake, function() got[#got + 1] = "s2" end, { id = "s2" })
    local pub = root:publisher(Shake)
    assert.is_true(kid:removeResponder("s1"))
    assert.equal(1, pub(Shake()))
    assert.same({ "s2" }, got)
    assert.equal(1, #kid:responders())
    assert.is_false(kid:removeResponder("s1"))
  end)

  it("a subscriber removed during a publication that selected it is not called", function()
    local got = {}
    local root = View "Root" { View "A" { id = "a" }, View "B" { id = "b" } }
    root:find("#a"):subscribe(Shake, function()
      got[#got + 1] = "a"
      root:find("#b"):removeResponder("b")
    end)
    root:find("#b"):subscribe(Shake, function() got[#got + 1] = "b" end, { id = "b" })
    root:publisher(Shake)(Shake())
    assert.same({ "a" }, got)
  end)
end)

describe("the count a publication returns", function()
  it("does not count a subscriber removed during the publication", function()
    local root = View "Root" { View "C" { id = "c" } }
    local c = root:find("#c")
    local pub = root:publisher(Shake)
    c:subscribe(Shake, function() c:removeResponder("b") end, { id = "a" })
    c:subscribe(Shake, function() end, { id = "b" })
    assert.equal(1, pub(Shake()))
  end)
end)

describe("a subscriber registered with { once = true }", function()
  it("is removed just before its first call, as a once responder is", function()
    local root = View "Root" { View "C" { id = "c" } }
    local c = root:find("#c")
    local calls = 0
    c:subscribe(Shake, function() calls = calls + 1 end, { once = true, id = "s" })
    assert.is_true(c:responders()[1].once)
    local pub = root:publisher(Shake)
    assert.equal(1, pub(Shake()))
    assert.equal(0, pub(Shake()))
    assert.equal(1, calls)
    assert.same({}, c:responders())
  end)

  it("runs once even when its own call publishes again", function()
    local root = View "Root" { View "C" { id = "c" } }
    local c = root:find("#c")
    local pub = root:publisher(Shake)
    local calls = 0
    c:subscribe(Shake, function()
      calls = calls + 1
      pub(Shake())
    end, { once = true })
    pub(Shake())
    assert.equal(1, calls)
  end)
end)

describe("a subscriber's ctx", function()
  it("has the publisher's node as origin and the way down as path (found by an acceptance probe)", function()
    -- ctx.origin was the subscriber's own node and ctx.path ran from it up to the root
    local item = View "Item"
    local root = View "Root" { View "List" { item } }
    local pub = root:publisher(Shake)
    local seen
    item:subscribe(Shake, function(_, ctx)
      local names = {}
      for i, n in ipairs(ctx.path) do names[i] = tostring(n) end
      seen = { node = tostring(ctx.node), origin = tostring(ctx.origin), path = table.concat(names, " > ") }
    end)
    assert.equal(1, pub(Shake()))
    assert.same({ node = "Item", origin = "Root", path = "Root > List > Item" }, seen)
  end)

  it("on the publisher's own node: a path of that node alone", function()
    local root = View "Root"
    local seen
    root:subscribe(Shake, function(_, ctx) seen = { ctx.node, ctx.origin, #ctx.path } end)
    local pub = root:publisher(Shake)
    assert.equal(1, pub(Shake()))
    assert.same({ root, root, 1 }, seen)
  end)

  it("of a node an earlier subscriber moved away: publisher's node, then the subscriber's", function()
    local a, b = View "A", View "B"
    local root = View "Root" { a, View "Box" { b } }
    local elsewhere = View "Elsewhere"
    local pub = root:publisher(Shake, { destination = "allLevels" })
    a:subscribe(Shake, function() elsewhere:add(b) end)
    local path
    b:subscribe(Shake, function(_, ctx) path = ctx.path end)
    assert.equal(2, pub(Shake()))
    assert.same({ root, b }, path)
  end)
end)
