-- SPEC §2.9: post / onReceive (while mounted) and property observation.

describe("notifications", function()
  it("post delivers to mounted receivers in document order", function()
    local log = {}
    local root = View "Root" { View "A" { View "A1" }, View "B" }
    root:find("B"):onReceive("didLogin", function(p) log[#log + 1] = "B " .. p.user end)
    root:find("A1"):onReceive("didLogin", function(p) log[#log + 1] = "A1 " .. p.user end)
    root:onReceive("didLogin", function(p) log[#log + 1] = "Root " .. p.user end)
    mount(root)
    assert.equal(3, post("didLogin", { user = "ann" }))
    assert.same({ "Root ann", "A1 ann", "B ann" }, log)
  end)

  it("only mounted nodes receive", function()
    local s = spy.new(function() end)
    local loose = View "Loose"
    loose:onReceive("ping", s)
    assert.equal(0, post("ping"))
    local root = View "Root"
    mount(root)
    root:add(loose)
    post("ping", 1)
    loose:remove()
    post("ping", 2)
    assert.spy(s).was.called(1)
    assert.spy(s).was.called_with(1, { name = "ping", payload = 1 })
  end)

  it("receivers of other names are not called", function()
    local s = spy.new(function() end)
    local root = View "Root"
    root:onReceive("a", s)
    mount(root)
    post("b")
    assert.spy(s).was.called(0)
  end)

  it("an error in a receiver is reported from its node", function()
    local root = View "Root" { View "R" }
    local caught
    root:handleError(function(e) caught = e end)
    root:find("R"):onReceive("x", function() error("receiver failed") end)
    mount(root)
    post("x")
    assert.truthy(LuaError:is(caught))
    assert.equal(root:find("R"), caught.node)
  end)

  it("post needs a name", function()
    assert.error_matches(function() post(nil) end, "bad argument #1 to 'post'")
  end)
end)

describe("the trace of a post (SPEC §2.8: every top-level action records one)", function()
  it("lists each receiver called, and the error one raised after its threw step", function()
    local Oops = Error "Oops"
    local root = View "Root"
    local a, b = View "A", View "B"
    root:add(a)
    root:add(b)
    root:handleError(Oops, function() end)
    a:onReceive("note", function() end)
    b:onReceive("other", function() end)
    b:onReceive("note", function(p) error(Oops { why = p }) end)
    mount(root)
    root:report(Oops {})  -- an earlier trace that post replaces
    assert.equal(2, post("note", 1))
    assert.equal(table.concat({
      "action post(note) from Root",
      "  A            #1 onReceive(note)              handled",
      "  B            #1 onReceive(note)              threw",
      "  Root         #1 handleError(Oops)            handled",
    }, "\n"), tostring(responder.lastTrace()))
    assert.equal(0, post("nobody"))
    assert.equal("action post(nobody) from Root", tostring(responder.lastTrace()))
  end)

  it("a post inside a receiver is part of the outer post", function()
    local root = View "Root"
    local log = {}
    root:onReceive("outer", function() post("inner") end)
    root:onReceive("inner", function() log[#log + 1] = "inner" end)
    mount(root)
    post("outer")
    assert.same({ "inner" }, log)
    assert.matches("^action post%(outer%) from Root\n  Root +#1 onReceive%(outer%) +handled$",
      tostring(responder.lastTrace()))
  end)
end)

describe("observe", function()
  it("pairs over observed props gives every key once, also after a rawset of an observed key", function()
    -- (the walk went from the observed keys back into the table's own without end: found by an
    -- acceptance probe)
    local n = View "N" { title = "a", other = 1 }
    n:observe("title", function() end)
    local function keys()
      local seen, count = {}, 0
      for k, v in pairs(n.props) do
        count = count + 1
        assert.is_true(count < 10, "pairs does not end")
        seen[k] = v
      end
      return seen, count
    end
    local seen, count = keys()
    assert.same({ title = "a", other = 1 }, seen)
    assert.equal(2, count)
    rawset(n.props, "title", "raw")
    seen, count = keys()
    assert.equal(2, count)
    assert.equal(1, seen.other)
    n.props.added = true
    seen, count = keys()
    assert.equal(3, count)
  end)

  it("calls the observer with the new and old value", function()
    local n = View "N" { count = 1 }
    mount(n)
    local seen = {}
    n:observe("count", function(new, old) seen[#seen + 1] = { new, old } end)
    n.props.count = 2
    n.props.count = 5
    assert.same({ { 2, 1 }, { 5, 2 } }, seen)
    assert.equal(5, n.props.count)
  end)

  it("other properties do not call it; pairs still works", function()
    local n = View "N" { a = 1, b = 2 }
    local s = spy.new(function() end)
    n:observe("a", s)
    n.props.b = 3
    n.props.c = 4
    assert.spy(s).was.called(0)
    local copy = {}
    for k, v in pairs(n.props) do copy[k] = v end
    assert.same({ a = 1, b = 3, c = 4 }, copy)
  end)

  it("several observers run in registration order; nil clears", function()
    local n = View "N"
    mount(n)
    local log = {}
    n:observe("x", function(new) log[#log + 1] = "first " .. tostring(new) end)
    n:observe("x", function(new, old) log[#log + 1] = "second " .. tostring(new) .. " " .. tostring(old) end)
    n.props.x = 1
    n.props.x = nil
    assert.same({ "first 1", "second 1 nil", "first nil", "second nil 1" }, log)
  end)

  it("observe returns a handle and checks its arguments", function()
    local n = View "N"
    local h = n:observe("x", function() end)
    assert.equal("function", type(h.cancel))
    assert.error_matches(function() n:observe("x", 5) end,
      "bad argument #2 to 'observe' %(function expected, got number%)")
  end)
end)
