-- Wrong-argument errors (SPEC §2.1): the function, the expected kind and what was given, at the
-- caller's file:line.

local A = Event "A"
local E = Error "E"

local function here()
  local _, e = pcall(error, "@", 3)
  return (e:match("^(.-:%d+): @"))
end

-- calls f (defined on the caller's line) and returns the error message
local function errorOf(f)
  local ok, err = pcall(f)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

describe("wrong arguments", function()
  it("trigger with a string: bad argument #1 at the caller's line", function()
    local n = View "N"
    local loc, f = here(), function() n:trigger("ItemSelected") end
    assert.equal(loc .. ": bad argument #1 to 'trigger' (event expected, got string)", errorOf(f))
  end)

  it("trigger with an error value", function()
    local n = View "N"
    local loc, f = here(), function() n:trigger(E()) end
    assert.equal(loc .. ": bad argument #1 to 'trigger' (event expected, got error)", errorOf(f))
  end)

  it("report with an event value", function()
    local n = View "N"
    local loc, f = here(), function() n:report(A()) end
    assert.equal(loc .. ": bad argument #1 to 'report' (error expected, got event)", errorOf(f))
  end)

  it("trigger with a type instead of a value", function()
    local n = View "N"
    local msg = errorOf(function() n:trigger(A) end)
    assert.matches("bad argument #1 to 'trigger' %(event expected, got ", msg)
  end)

  it("an error type where an event type is expected", function()
    local n = View "N"
    local loc, f = here(), function() n:receiveEvent(E, function() end) end
    assert.equal(loc .. ": bad argument #1 to 'receiveEvent' (event type expected, got error type)", errorOf(f))
  end)

  it("an event type where an error type is expected", function()
    local n = View "N"
    for _, name in ipairs { "receiveError", "handleError", "transformError", "catchError" } do
      local msg = errorOf(function() n[name](n, A, function() end) end)
      assert.matches("bad argument #1 to '" .. name .. "' %(error type expected, got event type%)", msg)
    end
    for _, name in ipairs { "receiveEvent", "handleEvent", "transformEvent" } do
      local msg = errorOf(function() n[name](n, E, function() end) end)
      assert.matches("bad argument #1 to '" .. name .. "' %(event type expected, got error type%)", msg)
    end
  end)

  it("a missing function", function()
    local n = View "N"
    local msg = errorOf(function() n:handleEvent(A) end)
    assert.matches("bad argument #2 to 'handleEvent' %(function expected, got no value%)", msg)
  end)

  it("a function where the filter type belongs is argument #1 (found by an acceptance probe)", function()
    -- AlertableError is the function that declares alertable types, not a type: the message
    -- blamed argument #2 as a bad options table
    local n = View "N"
    assert.matches("bad argument #1 to 'receiveError' %(error type expected, got function; a filter is a type made with Error or AlertableError \"Name\"%)",
      errorOf(function() n:receiveError(AlertableError, function() end) end))
    assert.matches("bad argument #1 to 'handleEvent' %(event type expected, got function",
      errorOf(function() n:handleEvent(Event, function() end) end))
  end)

  it("declarations check their kinds", function()
    local n = View "N"
    assert.matches("bad argument #1 to 'triggers' %(event type expected, got error type%)",
      errorOf(function() n:triggers(E) end))
    assert.matches("bad argument #1 to 'reports' %(error type expected, got event type%)",
      errorOf(function() n:reports(A) end))
    assert.matches("bad argument #2 to 'triggers' %(event type expected, got string%)",
      errorOf(function() n:triggers(A, "B") end))
  end)

  it("add needs a node", function()
    local n = View "N"
    local loc, f = here(), function() n:add("child") end
    assert.equal(loc .. ": bad argument #1 to 'add' (node expected, got string)", errorOf(f))
  end)

  it("mount and tap need a node", function()
    assert.matches("bad argument #1 to 'mount' %(node expected, got string%)", errorOf(function() mount("x") end))
    assert.matches("bad argument #1 to 'tap' %(node expected, got table%)", errorOf(function() tap({}) end))
  end)

  it("Event needs a name and an event parent type", function()
    assert.matches("bad argument #1 to 'Event'", errorOf(function() Event(3) end))
    assert.matches("bad argument #2 to 'Event' %(event type expected, got error type%)",
      errorOf(function() Event("X", E) end))
    assert.matches("bad argument #2 to 'Error' %(error type expected, got event type%)",
      errorOf(function() Error("X", A) end))
  end)

  it("subscribe and publisher need event types", function()
    local n = View "N"
    assert.matches("bad argument #1 to 'subscribe' %(event type expected, got error type%)",
      errorOf(function() n:subscribe(E, function() end) end))
    assert.matches("bad argument #1 to 'publisher' %(event type expected, got error type%)",
      errorOf(function() n:publisher(E) end))
  end)

  it("safetyLevel rejects unknown levels", function()
    local n = View "N"
    assert.matches("bad argument #1 to 'safetyLevel'", errorOf(function() n:safetyLevel("loose") end))
    assert.matches("bad argument #1 to 'requireExplicitResponders' %(boolean expected, got string%)",
      errorOf(function() n:requireExplicitResponders("yes") end))
  end)

  it("find needs a selector string", function()
    local n = View "N"
    assert.matches("bad argument #1 to 'find'", errorOf(function() n:find(3) end))
  end)

  it("a node name or id no selector could find is refused where it is given (found by an acceptance probe)", function()
    assert.matches("bad argument #1 to 'View' %(name expected: not empty and without '#'",
      errorOf(function() return View "A#b" end))
    assert.matches("bad argument #1 to 'View' %(name expected: not empty and without '#'",
      errorOf(function() return View "" end))
    assert.matches("bad field 'id' in X { … } %(id expected: not empty and without '#'; got \"a#b\"%)",
      errorOf(function() return View "X" { id = "a#b" } end))
    assert.matches("bad field 'id' in X { … } %(id expected: not empty and without '#'; got \"\"%)",
      errorOf(function() return View "X" { id = "" } end))
  end)

  it("find and findAll refuse what is not Name, #id or Name#id", function()
    local n = View "N" { View "Item" { id = "a b" } }
    for _, sel in ipairs { "", "#", ".cls", "*", "A B", "A>B", "[x]", "A,B", "A:hover", "A#b#c", "Item#" } do
      for _, f in ipairs { "find", "findAll" } do
        assert.matches("bad argument #1 to '" .. f .. "' %(selector expected: Name, #id or Name#id; got \"",
          errorOf(function() n[f](n, sel) end), nil, false, sel)
      end
    end
    -- an id may hold what a name may not
    assert.equal("Item#a b", tostring(n:find("#a b")))
    assert.equal("Item#a b", tostring(n:find("Item#a b")))
    assert.equal(1, #n:findAll("Item"))
  end)

  it("a name View accepts is a selector too, spaces and :>[], included, when a node has it", function()
    local root = View "Root" { View "Save Button", View "A:B" { id = "x" }, View "Grid > Item", View "Save Button" }
    assert.equal("Save Button", tostring(root:find("Save Button")))
    assert.equal(2, #root:findAll("Save Button"))
    assert.equal("A:B#x", tostring(root:find("A:B#x")))
    assert.equal("A:B#x", tostring(root:find("A:B")))
    assert.equal("Grid > Item", tostring(root:find("Grid > Item")))
    -- text no node is named: still the CSS habit, refused rather than finding nothing
    for _, sel in ipairs { "Root Save", "Root > Grid", "A:B#y", "Save Button#z" } do
      for _, f in ipairs { "find", "findAll" } do
        assert.matches("bad argument #1 to '" .. f .. "' %(selector expected: Name, #id or Name#id; got \"",
          errorOf(function() root[f](root, sel) end), nil, false, sel)
      end
    end
  end)

  it("an error raised by a wrong argument inside a responder is a LuaError there", function()
    local root = View "Root"
    root:handleEvent(function(e, ctx) ctx.node:trigger("oops") end)
    local msg
    root:handleError(function(err) msg = err.message end)
    root:trigger(A())
    assert.matches("bad argument #1 to 'trigger' %(event expected, got string%)", msg)
  end)
end)
