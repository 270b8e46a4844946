-- shake.lua: a device shake published downward to subscribers.
--
-- The app owns a publisher for DeviceShaken. Views that care subscribe. Publishing delivers
-- synchronously, in document order, to the chosen level of subscribers below the publisher,
-- and never bubbles up through responders.

local DeviceShaken = Event "DeviceShaken"

local app = View "App" {
  View "Feed" {
    id = "feed",
    View "Post" { id = "p1" },
    View "Post" { id = "p2" },
  },
  View "Composer" { id = "composer" },
}

local function subscriber(selector, what)
  app:find(selector):subscribe(DeviceShaken, function(e)
    print(string.format("  %-12s %s (strength %d)", selector, what, e.strength))
  end)
end
subscriber("#feed", "refreshes")
subscriber("#p1", "wiggles")
subscriber("#p2", "wiggles")
subscriber("#composer", "offers undo")

app:handleEvent(function() print("never printed: published events do not bubble") end)

local publishers = {}
for _, destination in ipairs { "firstLevel", "allLevels", "lastLevel" } do
  publishers[destination] = app:publisher(DeviceShaken, { destination = destination })
end

mount(app)                 -- every subscriber has a publisher above it: no warnings

for _, destination in ipairs { "firstLevel", "allLevels", "lastLevel" } do
  local shake = publishers[destination]
  print(destination .. ":")
  local reached = shake(DeviceShaken { strength = 3 })
  print("  -> reached " .. reached .. " subscriber(s)")
end
print()
print(responder.lastTrace())
print(#responder.warnings() .. " warnings")
