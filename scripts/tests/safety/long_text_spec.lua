-- Text the engine builds from what a script made is cut where one long text would repeat: a
-- script is charged for one copy of a name or a string, not for every line or field that prints
-- it (found by an adversarial probe: a 1 MiB type name on 300 trace lines, one 10 MiB string in
-- 30 fields, each gigabytes of text).

describe("long text in descriptions", function()
  it("a field longer than 1000 characters is cut with a count of the rest", function()
    local E = Event "E"
    local e = E { s = string.rep("x", 1500) }
    assert.equal('E{s="' .. string.rep("x", 1000) .. '"… (500 more characters)}', tostring(e))
    local short = E { s = string.rep("x", 1000) }
    assert.equal('E{s="' .. string.rep("x", 1000) .. '"}', tostring(short))
  end)

  it("one string repeated in many fields stays small", function()
    local big = string.rep("y", 64 * 1024)
    local t = setmetatable({}, { __tostring = function() return big end })
    local fields = {}
    for i = 1, 100 do fields["k" .. i] = t end
    local text = tostring(Event "E"(fields))
    assert.is_true(#text <= 64 * 1024 + 100, "got " .. #text)
    assert.matches("… %(%d+ more fields%)}$", text)
  end)

  it("a long type name is cut in each trace line, not in the value", function()
    local name = string.rep("T", 300)
    local E = Event(name)
    local root = View "Root"
    for _ = 1, 3 do root:receiveEvent(E, function() return false end) end
    root:safetyLevel("disabled")
    local trace = tostring(root:trigger(E()).trace)
    local lines = {}
    for line in trace:gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert.equal(5, #lines)
    assert.equal("event " .. name .. "{} from Root", lines[1])
    -- (the label cuts the name at 200 characters, the line cuts the label at 200)
    local label = "receiveEvent(" .. string.rep("T", 187) .. "… (37 more characters)"
    assert.equal("  Root         #1 " .. label .. " passed", lines[2])
    assert.equal("  Root            unhandled", lines[5])
  end)
end)
