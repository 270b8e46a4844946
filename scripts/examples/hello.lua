-- hello.lua: the smallest responder scenario.
-- A button deep in the tree triggers an event; the root handles it.
local Greeted = Event "Greeted"

local button = EventButton "Say hello" { event = Greeted { who = "world" } }
local root = View "App" {
  View "Screen" { button },
}
root:handleEvent(Greeted, function(e, ctx)
  print("hello, " .. e.who .. "! (handled by " .. tostring(ctx.node) .. ")")
end)
mount(root)

local outcome = tap(button)
print(outcome.handled, outcome.by, outcome.responder)
print(outcome.trace)
