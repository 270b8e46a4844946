-- __gc metamethods that use the module while the state closes (found by scripts/fuzz, seed 3084).
-- The state closes after the file's last test; the finalizer below then passes a value where the
-- API expects something else, twice. Before the fix, a Swift value made for the first error
-- message was released without clearing the value's cell, and the second message read it (use
-- after free: the sanitizer step of scripts/test failed on it, a release build crashed about
-- every second run).

-- luacheck: globals CLOSE_KEEP (a global on purpose: it must outlive the test, until the state closes)
describe("finalizers at state close", function()
  it("may call the module with values of the wrong kind", function()
    local Ev, Er = Event "Ev", Error "Er"
    CLOSE_KEEP = { View "Root" { View "Item" { id = "b" } }, Er { }, Ev { item = "b" }, Ev }
    CLOSE_KEEP[1]:handleEvent(function() end)
    assert.is_true(CLOSE_KEEP[1]:find("#b"):trigger(CLOSE_KEEP[3]).handled)
    CLOSE_KEEP[5] = Ev { title = setmetatable({}, { __gc = function()
      for i = 1, 4 do
        pcall(function() CLOSE_KEEP[i]:trigger(CLOSE_KEEP[i + 1]) end)
        pcall(function() CLOSE_KEEP[1]:report(CLOSE_KEEP[i]) end)
      end
    end }) }
  end)
end)
