-- Re-checks scripts/examples/shake.lua: a shake event published downward to subscribers.

local DeviceShaken = Event "DeviceShaken"

local function build(log)
  local app = View "App" {
    View "Feed" { id = "feed", View "Post" { id = "p1" }, View "Post" { id = "p2" } },
    View "Composer" { id = "composer" },
  }
  for _, sel in ipairs { "#feed", "#p1", "#p2", "#composer" } do
    app:find(sel):subscribe(DeviceShaken, function(e) log[#log + 1] = sel .. ":" .. e.strength end)
  end
  local bubbled = { false }
  app:handleEvent(function() bubbled[1] = true end)
  local pubs = {}
  for _, d in ipairs { "firstLevel", "allLevels", "lastLevel" } do
    pubs[d] = app:publisher(DeviceShaken, { destination = d })
  end
  return app, pubs, bubbled
end

describe("shake example", function()
  it("mounts with every subscriber under a publisher", function()
    local app = build({})
    assert.no_warnings(function() mount(app) end)
  end)

  it("firstLevel reaches the feed and the composer", function()
    local log = {}
    local app, pubs = build(log)
    mount(app)
    assert.equal(2, pubs.firstLevel(DeviceShaken { strength = 3 }))
    assert.same({ "#feed:3", "#composer:3" }, log)
  end)

  it("allLevels reaches everyone in document order", function()
    local log = {}
    local app, pubs = build(log)
    mount(app)
    assert.equal(4, pubs.allLevels(DeviceShaken { strength = 1 }))
    assert.same({ "#feed:1", "#p1:1", "#p2:1", "#composer:1" }, log)
  end)

  it("lastLevel reaches the posts, and nothing bubbles", function()
    local log = {}
    local app, pubs, bubbled = build(log)
    mount(app)
    assert.equal(2, pubs.lastLevel(DeviceShaken { strength = 2 }))
    assert.same({ "#p1:2", "#p2:2" }, log)
    assert.is_false(bubbled[1])
  end)
end)
