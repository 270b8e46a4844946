-- The responder assertions against the real engine, and the fresh world before each `it`.

local ItemSelected = Event "ItemSelected"
local Ping = Event "Ping"

local function tree()
  local root = View "Root" { View "Grid" { View "Item" { id = "b" } } }
  root:handleEvent(ItemSelected, function() end)
  return root, root:find("#b")
end

describe("responder assertions", function()
  it("handled / unhandled / trace on a real dispatch", function()
    local root, item = tree()
    local o = item:trigger(ItemSelected { item = "b" })
    assert.handled(o)
    assert.handled(o, root)
    assert.handled(o, "Root")
    assert.trace(o, {
      'event ItemSelected{item="b"} from Item#b',
      "Root #1 handleEvent(ItemSelected) handled",
    })
    assert.trace(o.trace, "event ItemSelected* from Item#b\nRoot * handled")
    assert.unhandled(item:trigger(Ping()))
  end)

  it("a failing handled carries the trace", function()
    local _, item = tree()
    local ok, e = pcall(function() assert.handled(item:trigger(Ping())) end)
    assert.is_false(ok)
    assert.truthy(e.message:find("unhandled", 1, true))
    assert.truthy(e.trace:find("event Ping{} from Item#b", 1, true))
  end)

  it("warns / no_warnings", function()
    local root = tree()
    mount(root)
    assert.warns("unhandledEvent", function() root:trigger(Ping()) end)
    assert.no_warnings(function() root:trigger(ItemSelected {}) end)
    local ok = pcall(function() assert.warns("unhandledError", function() end) end)
    assert.is_false(ok)
    ok = pcall(function() assert.no_warnings(function() root:trigger(Ping()) end) end)
    assert.is_false(ok)
  end)

  it("warns takes a strict violation of that kind as the warning (found by an acceptance probe)", function()
    -- under strict the violation raises instead of being recorded: assert.warns errored
    local root = tree()
    root:safetyLevel("strict")
    mount(root)
    assert.warns("unhandledEvent", function() root:trigger(Ping()) end)
    assert.equal(0, #responder.warnings())
    -- a strict violation of another kind, or any other error, still goes on
    local ok, e = pcall(function() assert.warns("unhandledError", function() root:trigger(Ping()) end) end)
    assert.is_false(ok)
    assert.matches("unhandled event Ping{}", tostring(e))
    ok, e = pcall(function() assert.warns("unhandledEvent", function() error("not a violation") end) end)
    assert.is_false(ok)
    assert.matches("not a violation", tostring(e))
    -- and assert.no.warns fails for it
    ok = pcall(function() assert.no.warns("unhandledEvent", function() root:trigger(Ping()) end) end)
    assert.is_false(ok)
  end)

  it("snapshots a trace", function()
    local _, item = tree()
    assert.snapshot("trace of ItemSelected", item:trigger(ItemSelected { item = "b" }).trace)
  end)
end)

describe("a fresh world before each it", function()
  it("leaves warnings behind", function()
    local root = View "Root" {}
    mount(root)
    root:trigger(Ping())
    assert.equal(1, #responder.warnings())
  end)

  it("starts with no warnings and no last trace", function()
    assert.equal(0, #responder.warnings())
    assert.is_nil(responder.lastTrace())
  end)
end)
