-- SPEC §2: "In every script run by the CLI (run, test, repl) its public names are also globals"
-- (found by an acceptance probe: reset, warnings, lastTrace, … were module-only).

describe("the module's public names are globals", function()
  it("the world functions are the module's own", function()
    for _, name in ipairs { "reset", "warnings", "clearWarnings", "lastTrace", "alert", "dismissAlert", "mounted",
                            "mount", "tap", "View", "Event", "post", "advance" } do
      assert.is_function(_G[name], name)
      assert.equal(responder[name], _G[name], name)
    end
  end)

  it("they work without the prefix", function()
    local E = Event "E"
    local root = View "Root"
    root:handleEvent(E, function() end)
    mount(root)
    assert.equal(root, mounted())
    root:trigger(E())
    assert.equal("event E{} from Root\n  Root         #1 handleEvent(E)               handled", tostring(lastTrace()))
    View("Other"):trigger(E())
    assert.equal(1, #warnings())
    clearWarnings()
    assert.equal(0, #warnings())
    reset()
    assert.is_nil(mounted())
    assert.is_nil(lastTrace())
  end)
end)
