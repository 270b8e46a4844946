-- Option tables with metatables (found by scripts/fuzz): the bindings read option tables raw, so a
-- metamethod that raises or loops never runs while Swift code is on the stack (an error there
-- would unwind Swift frames and leak what they hold; the sanitizer run of scripts/test reports
-- such leaks).

local E = Event "E"

local raising = { __index = function(_, k) error("index " .. tostring(k)) end }
local looping = { __index = function() while true do end end }

describe("option tables with metatables", function()
  it("responder options: __index is not consulted", function()
    local n = View "N"
    n:handleEvent(E, function() end, setmetatable({}, raising))
    n:receiveEvent(E, function() end, setmetatable({ id = "r" }, looping))
    local list = n:responders()
    assert.equal(2, #list)
    assert.is_nil(list[1].id)
    assert.equal("r", list[2].id)
    assert.is_true(n:trigger(E()).handled)
  end)

  it("responder options: an id offered only through __index is not seen", function()
    local n = View "N"
    n:handleEvent(E, function() end, setmetatable({}, { __index = { id = "hidden", once = true } }))
    assert.is_nil(n:responders()[1].id)
    assert.is_false(n:responders()[1].once)
  end)

  it("onTapGesture spec: raw fields only", function()
    local n = View "N"
    local taps = 0
    n:onTapGesture(setmetatable({ perform = function() taps = taps + 1 end }, raising))
    tap(n)
    assert.equal(1, taps)
    local m = View "M"
    local ok, err = pcall(m.onTapGesture, m, setmetatable({}, { __index = { perform = function() end } }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("needs 'trigger'", 1, true))
  end)

  it("publisher options: raw fields only", function()
    local n = View "N"
    local pub = n:publisher(E, setmetatable({ destination = "allLevels" }, raising))
    assert.equal(0, pub(E()))
  end)
end)
