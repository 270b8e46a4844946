-- target_action.lua: the same sign-up form wired three ways (SPEC §2.9).
--   1. SwiftUI view closures and bindings: the controls write State through Bindings.
--   2. UIKit target–action: the Save button's dispatch table has a closure action
--      (addAction), a table target (addTarget) and a nil-targeted "save" action that is
--      found by walking the responder chain up to the node that can perform it.
--   3. Closure sugar: node.on.valueChange / node.on.textChange.
--   Save stays disabled until the form is valid (SwiftUI .disabled, UIKit isEnabled).
local Saved = Event "Saved"

local name = State("")
local subscribed = State(false)
local volume = State(5)

local analytics = { events = {} }
function analytics:track(sender, action)
  self.events[#self.events + 1] = tostring(sender) .. " " .. action.event
end

local nameField = TextField "Name" {
  text = name:binding(),
  onEditingChanged = function(editing) print("name field editing:", editing) end,
  onCommit = function() print("name committed:", name.value) end,
}
local newsletter = Toggle "Newsletter" { isOn = subscribed }
local volumeSlider = Slider { value = volume, range = { 0, 10 }, step = 1 }
local formInvalid = Binding { get = function() return name.value == "" end, set = function() end }
local save = Button "Save" {
  id = "save",
  disabled = formInvalid,
  action = function(sender) print("Save tapped (the Button's own action)") end,
}

local form = View "Form" { nameField, newsletter, volumeSlider, save }
local screen = View "SignUpScreen" { form }
local app = View "App" { screen }

-- bindings: observe the source of truth
form:onChange(name, function(new, old) print(("name: %q -> %q"):format(old, new)) end)
volumeSlider.on.valueChange(function(v) print("volume is now", v) end)

-- target–action on the Save button
save:addAction(function(sender, action) print("closure action", action.id, "from", sender) end,
  { id = "log", title = "Log" })
save:addTarget(analytics, "track", "touchUpInside")
save:addTarget(nil, "save") -- nil target: who can perform "save"?
screen:canPerform("save", function(sender, action)
  print(("%s performs %s for %s"):format(tostring(action.target), action.selector, tostring(sender)))
  sender:trigger(Saved { name = name.value, subscribed = subscribed.value })
end)
app:handleEvent(Saved, function(e) print("saved:", e) end)

mount(app)

print("tap Save on the empty form:", tap(save), responder.lastTrace())
typeText(nameField, "Ada")
print("Save enabled:", save.isEnabled)
commit(nameField)
toggle(newsletter)
slide(volumeSlider, 7.6)

print("-- Save's dispatch table:")
for _, h in ipairs(save:eventHandlers()) do
  print(("  #%d %-14s %-6s %s"):format(h.index, h.event, h.kind, h.id or h.selector))
end

print("-- tap Save:")
tap(save)
print("analytics:", table.concat(analytics.events, ", "))

-- a nil-targeted action nobody performs is a violation, like an unhandled event
save:addTarget(nil, "share")
tap(save)
print("warnings:", #responder.warnings(), responder.warnings()[1].kind)
