-- Re-checks scripts/examples/alert_error.lua: an event handler throws an AlertableError shown as an alert.

local SaveRequested = Event "SaveRequested"
local SaveFailed = AlertableError "SaveFailed"

local function build(size)
  local saveButton = EventButton "Save" { event = SaveRequested() }
  local editor = View "Editor" { View "Toolbar" { saveButton }, size = size }
  local app = View "App" { editor }
  local saved = {}
  editor:handleEvent(SaveRequested, function(_, ctx)
    local s = ctx.node.props.size
    if s > 10 then
      error(SaveFailed { title = "Cannot save", message = "The document is " .. s .. " MB; the limit is 10 MB." })
    end
    saved[#saved + 1] = s
  end)
  app:handleAlertErrors()
  mount(app)
  return app, editor, saveButton, saved
end

describe("alert error example", function()
  it("a failing save becomes an alert", function()
    local app, editor, button = build(12)
    local o = tap(button)
    assert.handled(o, app)
    assert.equal("handleAlertErrors", o.responder)
    assert.equal(SaveFailed, o.value.type)
    local a = responder.alert()
    assert.equal("Cannot save", a.title)
    assert.equal("The document is 12 MB; the limit is 10 MB.", a.message)
    assert.equal("Okay", a.button)
    assert.equal(app, a.node)
    assert.trace(o, {
      "event SaveRequested{} from EventButton",
      "  Editor * handleEvent(SaveRequested) * threw",
      "  App * handleAlertErrors * handled",
    })
  end)

  it("a successful save shows no alert", function()
    local app, editor, button, saved = build(4)
    local o = tap(button)
    assert.handled(o, editor)
    assert.same({ 4 }, saved)
    assert.is_nil(responder.alert())
  end)

  it("dismissing and saving again", function()
    local app, editor, button, saved = build(12)
    tap(button)
    responder.dismissAlert()
    editor.props.size = 3
    tap(button)
    assert.is_nil(responder.alert())
    assert.same({ 3 }, saved)
    assert.equal(0, #responder.warnings())
  end)
end)
