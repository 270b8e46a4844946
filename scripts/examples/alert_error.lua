-- alert_error.lua: an event handler throws an AlertableError, shown as an alert.
--
-- Tapping "Save" triggers SaveRequested. The editor's handler tries to save; when the document
-- is too large it raises SaveFailed (an AlertableError). Raising inside an event responder
-- converts the event into that error at the handler's position; the error goes on to the next
-- entries and up to the app, whose handleAlertErrors() consumes it and presents an alert.

local SaveRequested = Event "SaveRequested"
local SaveFailed = AlertableError "SaveFailed"

local saveButton = EventButton "Save" { event = SaveRequested() }
local editor = View "Editor" { View "Toolbar" { saveButton }, size = 12 }
local app = View "App" { editor }

editor:handleEvent(SaveRequested, function(_, ctx)
  local size = ctx.node.props.size
  if size > 10 then
    error(SaveFailed { title = "Cannot save", message = "The document is " .. size .. " MB; the limit is 10 MB." })
  end
  print("saved " .. size .. " MB")
end)
app:handleAlertErrors()

mount(app)

local outcome = tap(saveButton)
print("handled: " .. tostring(outcome.handled) .. " by " .. tostring(outcome.by) .. " (" .. outcome.responder .. ")")
print("value:   " .. tostring(outcome.value))
local alert = responder.alert()
print(string.format("alert:   [%s] %s  <%s>", alert.title, alert.message, alert.button))
print()
print(outcome.trace)

responder.dismissAlert()
editor.props.size = 4
tap(saveButton)
print("alert after a successful save: " .. tostring(responder.alert()))
