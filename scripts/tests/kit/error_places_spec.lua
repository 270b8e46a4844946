-- SPEC §2.1: a wrong kind of value raises an error "at the caller's file:line". The kit functions
-- written in Lua must name a script line also when the script calls them in tail position
-- (`return post(1)`): the caller's frame is gone then, so the line is the one that called it
-- (here, the pcall's), never none and never the kit's own files.

-- `file:line: ` of the line that calls it
local function hereAt() return select(2, pcall(error, "", 3)) end

local function check(e, at, text)
  assert.is_string(e)
  assert.are.equal(at, e:sub(1, #at), e)
  assert.truthy(e:find(text, 1, true), e)
  assert.falsy(e:find("Sources/", 1, true), e)
end

describe("kit errors name the script line", function()
  it("when the kit function is called in tail position", function()
    local cases = {
      { function() return post(1) end, "bad argument #1 to 'post' (notification name (string) expected, got number)" },
      { function() return View "V":preference("P", 1) end, "bad argument #1 to 'preference'" },
      { function() return sleep(1) end, "sleep called outside a task" },
      { function() return Preference("x") end, "bad argument #2 to 'Preference'" },
      { function() return after("x") end, "bad argument #1 to 'after'" },
      { function() return task(function() end, { node = 1 }) end, "bad option 'node' to 'task'" },
      { function() return advance(-1) end, "bad argument #1 to 'advance'" },
    }
    for _, c in ipairs(cases) do
      local ok, e = pcall(c[1]); local at = hereAt()
      assert.is_false(ok)
      check(e, at, c[2])
    end
  end)

  it("when it is called as a statement, or straight from pcall", function()
    local ok, e = pcall(function() post(1) end); local at = hereAt()
    assert.is_false(ok)
    check(e, at, "bad argument #1 to 'post'")
    ok, e = pcall(post, 1); at = hereAt()
    assert.is_false(ok)
    check(e, at, "bad argument #1 to 'post'")
  end)

  it("for an assignment to a read-only handle or timer", function()
    local h = View "V":onAppear(function() end)
    local ok, e = pcall(function() h.x = 1 end); local at = hereAt()
    assert.is_false(ok)
    check(e, at, "cannot assign field 'x'")
    local t = after(1, function() end)
    ok, e = pcall(function() t.x = 1 end); at = hereAt()
    assert.is_false(ok)
    check(e, at, "a timer is read-only")
  end)
end)

describe("tracebacks", function()
  it("name no file of the kit's own (found by an acceptance probe)", function()
    -- (they listed Sources/ResponderKit/Lua/async.lua lines the script cannot read)
    local root = View "Root"
    local got = {}
    root:handleError(function(e) got[#got + 1] = e end)
    local s = State(1)
    root:onChange(s, function() error("in onChange") end)
    mount(root)
    task(function() sleep(1); error("in a task") end, { node = root })
    s.value = 2
    advance(1)
    assert.equal(2, #got)
    for _, e in ipairs(got) do
      assert.matches("stack traceback:", e.traceback)
      assert.is_nil(e.traceback:find("Sources/", 1, true), e.traceback)
      assert.matches("error_places_spec.lua:%d+:", e.traceback)
    end
  end)
end)
