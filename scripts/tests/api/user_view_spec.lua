-- issue 10: what the user sees (trace columns, REPL-visible labels)
describe("the trace text", function()
  it("keeps SPEC's 12 and 28 columns for short names", function()
    local E = Event "E"
    local root = View "Root" {}
    local leaf = View "Leaf" {}
    root:add(leaf)
    root:handleEvent(E, function() end)
    mount(root)
    local o = leaf:trigger(E {})
    assert.equal("event E{} from Leaf\n  Root         #1 handleEvent(E)               handled", tostring(o.trace))
  end)

  it("sizes the node column to the longest name so the columns stay aligned", function()
    local E = Event "E"
    local root = View "AVeryLongScreenName" { id = "main" }
    local leaf = View "y" {}
    root:add(leaf)
    leaf:triggers(E)
    root:handleEvent(E, function() end)
    mount(root)
    local o = leaf:trigger(E {})
    assert.equal(table.concat({
      "event E{} from y",
      "  y                        #1 triggers(E)                  declared",
      "  AVeryLongScreenName#main #1 handleEvent(E)               handled",
    }, "\n"), tostring(o.trace))
  end)

  it("sizes the responder column to the longest label", function()
    local A = Event "AnEventWithAVeryLongNameIndeed"
    local B = Event "B"
    local root = View "Root" {}
    root:triggers(A, B)
    root:handleEvent(B, function() end)
    root:handleEvent(A, function() end)
    mount(root)
    local o = root:trigger(A {})
    local lines = {}
    for line in tostring(o.trace):gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert.equal("  Root         #1 triggers(AnEventWithAVeryLongNameIndeed, B) declared", lines[2])
    assert.equal("  Root         #2 handleEvent(B)                              skipped", lines[3])
    assert.equal("  Root         #3 handleEvent(AnEventWithAVeryLongNameIndeed) handled", lines[4])
  end)
end)

describe("a method called with a dot", function()
  it("gets Lua's bad-self message and a hint naming the receiver", function()
    local E = Event "E"
    local root = View "root" {}
    local ok, err = pcall(function() root.handleEvent(E, function() end) end)
    assert.is_false(ok)
    assert.matches("calling 'handleEvent' on bad self %(node expected, got event type%); "
      .. "use root:handleEvent%(%.%.%.%) %(a colon, not a dot%)$", err)
    local screens = { main = root }
    ok, err = pcall(function() screens.main.trigger(E {}) end)
    assert.matches("use screens%.main:trigger%(%.%.%.%)", err)
  end)

  it("gives no hint when a colon was used", function()
    local ok, err = pcall(function() local t = { handleEvent = View "x" {}.handleEvent }; t:handleEvent(1) end)
    assert.is_false(ok)
    assert.matches("calling 'handleEvent' on bad self %(node expected, got table%)$", err)
  end)
end)

describe("a responder that returns the wrong type", function()
  it("names the line that registered it", function()
    local E = Event "E"
    local root = View "root" {}
    root:transformEvent(E, function() return 42 end)   -- the registration line
    local line = debug.getinfo and debug.getinfo(1, "l").currentline - 1
    local caught
    local top = View "top" { root }
    top:handleError(LuaError, function(e) caught = e.message end)
    mount(top)
    root:trigger(E {})
    assert.is_string(caught)
    assert.matches("^scripts/tests/api/user_view_spec%.lua:%d+: transformEvent registered here returned number %(an event expected%)$", caught)
    if line then assert.matches(":" .. line .. ":", caught) end
  end)
end)

describe("a publication's trace", function()
  it("indexes a subscribe step in node:responders(), after the responder entries", function()
    local Shake = Event "Shake"
    local Other = Event "Other"
    local root = View "Root" {}
    local pub = root:publisher(Shake)
    local screen = View "Screen" {}
    root:add(screen)
    screen:handleEvent(Other, function() end)
    screen:subscribe(Shake, function() end, { id = "s" })
    mount(root)
    pub:publish(Shake {})
    local list = screen:responders()
    assert.equal(2, #list)
    assert.same({ 1, "handleEvent" }, { list[1].index, list[1].kind })
    assert.same({ 2, "subscribe", "subscribe(Shake)", "s", false },
      { list[2].index, list[2].kind, list[2].label, list[2].id, list[2].once })
    assert.equal(Shake, list[2].filter)
    local step = responder.lastTrace()[1]
    assert.equal(2, step.index)
    assert.equal(list[2].kind, step.responder)
    assert.matches("Screen       #2 subscribe%(Shake%)", tostring(responder.lastTrace()))
  end)
end)

describe("Preference", function()
  it("needs its spec, as SwiftUI's PreferenceKey needs a default and reduce", function()
    local ok, err = pcall(Preference, "p")
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'Preference' %(spec { default = v, reduce = function%(acc, nxt%) } expected, got no value%)", err)
  end)

  it("names an unknown key of its spec", function()
    local ok, err = pcall(Preference, "p", { defualt = 0 })
    assert.is_false(ok)
    assert.matches("unknown key 'defualt' in Preference's spec %(expected default, reduce%) %(did you mean 'default'%?%)", err)
  end)

  it("takes a spec with a default only (the last value set wins)", function()
    local P = Preference("p", { default = 0 })
    local root = View "Root" { View "A" {} }
    root:find("A"):preference(P, 3)
    assert.equal(3, root:preferenceValue(P))
  end)
end)
