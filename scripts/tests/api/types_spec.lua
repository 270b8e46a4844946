-- Types and values (SPEC §2.1): Event/Error/AlertableError/LuaError, T:is, immutability, printing.

describe("Event types", function()
  it("declares a named type whose values expose fields, type and name", function()
    local ItemSelected = Event "ItemSelected"
    local e = ItemSelected { item = "b", count = 2 }
    assert.equal("b", e.item)
    assert.equal(2, e.count)
    assert.equal(ItemSelected, e.type)
    assert.equal("ItemSelected", e.name)
    assert.equal("ItemSelected", ItemSelected.name)
  end)

  it("makes a value without fields when called with no table", function()
    local Ping = Event "Ping"
    local e = Ping()
    assert.equal(Ping, e.type)
    assert.equal("Ping{}", tostring(e))
  end)

  it("prints values as Name{key=value} with keys sorted", function()
    local ItemSelected = Event "ItemSelected"
    assert.equal('ItemSelected{item="b"}', tostring(ItemSelected { item = "b" }))
    assert.equal('ItemSelected{a=1, item="b", z=true}', tostring(ItemSelected { z = true, item = "b", a = 1 }))
  end)

  it("prints the type as its name", function()
    local Shake = Event "Shake"
    assert.equal("Shake", tostring(Shake))
  end)

  it("makes values immutable and names transformEvent in the error", function()
    local ItemSelected = Event "ItemSelected"
    local e = ItemSelected { item = "b" }
    assert.error_matches(function() e.item = "c" end, "transformEvent")
    assert.error_matches(function() e.extra = 1 end, "transformEvent")
    assert.equal("b", e.item)
    assert.is_nil(e.extra)
  end)

  it("declares a subtype with Event(name, parent)", function()
    local Base = Event "Base"
    local Sub = Event("Sub", Base)
    local Other = Event "Other"
    assert.is_true(Base:is(Sub()))
    assert.is_true(Base:is(Base()))
    assert.is_true(Sub:is(Sub()))
    assert.is_false(Sub:is(Base()))
    assert.is_false(Other:is(Sub()))
  end)

  it("T:is follows the whole ancestry, not just the direct parent", function()
    local A = Event "A"
    local B = Event("B", A)
    local C = Event("C", B)
    assert.is_true(A:is(C()))
    assert.is_true(B:is(C()))
    assert.is_false(C:is(B()))
  end)

  it("T:is is false for non-values", function()
    local A = Event "A"
    assert.is_false(A:is("A"))
    assert.is_false(A:is(nil))
    assert.is_false(A:is({ type = A }))
  end)

  it("two types with the same name are still distinct types", function()
    local A1 = Event "Same"
    local A2 = Event "Same"
    assert.is_false(A1:is(A2()))
  end)
end)

describe("Error types", function()
  it("declares error types whose values work like event values", function()
    local LoadFailed = Error "LoadFailed"
    local e = LoadFailed { code = 404 }
    assert.equal(404, e.code)
    assert.equal(LoadFailed, e.type)
    assert.equal("LoadFailed", e.name)
    assert.equal("LoadFailed{code=404}", tostring(e))
    assert.has_error(function() e.code = 500 end)
  end)

  it("supports error subtypes", function()
    local NetworkError = Error "NetworkError"
    local Timeout = Error("Timeout", NetworkError)
    assert.is_true(NetworkError:is(Timeout()))
    assert.is_false(Timeout:is(NetworkError()))
  end)

  it("an event type does not match error values and vice versa", function()
    local E = Error "Thing"
    local V = Event "Thing"
    assert.is_false(E:is(V()))
    assert.is_false(V:is(E()))
  end)
end)

describe("AlertableError", function()
  it("requires a string message", function()
    local Failure = AlertableError "Failure"
    assert.has_error(function() Failure {} end)
    assert.has_error(function() Failure { message = 42 } end)
    local f = Failure { message = "Could not save" }
    assert.equal("Could not save", f.message)
    assert.is_nil(f.title)
  end)

  it("accepts an optional string title", function()
    local Failure = AlertableError "Failure"
    local f = Failure { message = "m", title = "Oops" }
    assert.equal("Oops", f.title)
    assert.equal('Failure{message="m", title="Oops"}', tostring(f))
    assert.has_error(function() Failure { message = "m", title = 3 } end)
  end)

  it("is an error type (usable as an error filter)", function()
    local Failure = AlertableError "Failure"
    local root = View "Root"
    local seen
    root:handleError(Failure, function(e) seen = e.message end)
    local o = root:report(Failure { message = "x" })
    assert.handled(o, root)
    assert.equal("x", seen)
  end)
end)

describe("LuaError", function()
  it("is the built-in error type for runtime errors raised in responders", function()
    local A = Event "A"
    local root = View "Root" { View "Child" }
    local child = root:find("Child")
    local got
    child:handleEvent(function() local t = nil; return t.field end)
    root:handleError(LuaError, function(e) got = e end)
    local o = child:trigger(A())
    assert.handled(o, root)
    assert.is_true(LuaError:is(got))
    assert.equal("LuaError", got.name)
    assert.matches("attempt to index a nil value", got.message)
    assert.equal("string", type(got.traceback))
    assert.equal(child, got.node)
  end)

  it("wraps error('text') with the text as message", function()
    local A = Event "A"
    local root = View "Root"
    root:handleEvent(function() error("plain failure") end)
    local msg
    root:handleError(function(e) msg = e.message end)
    root:trigger(A())
    assert.matches("plain failure$", msg)
  end)
end)

describe("the module", function()
  it("require 'responder' returns the module whose names are also globals", function()
    local R = require "responder"
    assert.equal(responder, R)
    assert.equal(Event, R.Event)
    assert.equal(Error, R.Error)
    assert.equal(View, R.View)
    assert.equal(mount, R.mount)
    assert.equal(tap, R.tap)
    assert.equal(EventButton, R.EventButton)
    assert.equal(AlertableError, R.AlertableError)
    assert.equal(LuaError, R.LuaError)
  end)

  it("reset clears the mounted tree, warnings, alert and traces", function()
    local A = Event "A"
    local Failure = AlertableError "Failure"
    local root = View "Root"
    root:handleAlertErrors()
    mount(root)
    root:trigger(A())                     -- unhandled: a warning
    root:report(Failure { message = "m" }) -- an alert
    assert.equal(root, responder.mounted())
    assert.equal(1, #responder.warnings())
    assert.is_not_nil(responder.alert())
    assert.is_not_nil(responder.lastTrace())
    responder.reset()
    assert.is_nil(responder.mounted())
    assert.equal(0, #responder.warnings())
    assert.is_nil(responder.alert())
    assert.is_nil(responder.lastTrace())
  end)

  it("print number keys in numeric order, then names, other string keys quoted, control characters escaped", function()
    local Ev = Event "Printed"
    assert.equal('Printed{[1]=10, [2]=20, [10]=100, ["1"]=3, Z=4, a=1, ["a b"]=2, ["end"]=5}',
      tostring(Ev { [1] = 10, [2] = 20, [10] = 100, a = 1, ["a b"] = 2, ["1"] = 3, Z = 4, ["end"] = 5 }))
    assert.equal('Printed{s="tab\\there\\r\\000x", t="a\\0012"}', tostring(Ev { s = "tab\there\r\0x", t = "a\1" .. "2" }))
  end)
end)

describe("fields named type, name and kind", function()
  it("e.type and e.name stay the type and its name (SPEC §2.1); the fields print and iterate", function()
    local Moved = Event "Moved"
    local shadowed = Moved { type = "drag", name = "handle" }
    assert.equal(Moved, shadowed.type)
    assert.equal("Moved", shadowed.name)
    assert.equal('Moved{name="handle", type="drag"}', tostring(shadowed))
    local seen = {}
    for k, x in pairs(shadowed) do seen[k] = x end
    assert.same({ name = "handle", type = "drag" }, seen)
    local v = Moved { kind = "drag", label = "handle" }
    assert.equal("Moved", v.name)
    assert.equal(Moved, v.type)
    assert.equal("handle", v.label)
    -- `kind` is no SPEC name: a field wins, else "event" or "error"
    assert.equal("drag", v.kind)
    assert.equal("event", Moved {}.kind)
    assert.equal("error", Error "Failed" {}.kind)
  end)
end)

describe("a field named cause", function()
  it("reads back while the value replaced no error (SPEC §2.4's cause comes first)", function()
    local A, Er = Event "A", Error "Er"
    assert.equal("c", A { cause = "c" }.cause)
    assert.equal("disk full", Er { cause = "disk full" }.cause)
    assert.is_nil(Er {}.cause)
  end)
end)

-- A value with few fields keeps them in its own userdata (no table); one with more fields in a
-- table: both must read, print, iterate, compare and stay immutable alike.
describe("values with few and with many fields", function()
  local function fields(n)
    local t = {}
    for i = 1, n do t["f" .. i] = i end
    return t
  end

  it("reads every field back, and nil for a field it lacks, whatever the count", function()
    local E = Event "E"
    for _, n in ipairs { 0, 1, 2, 8, 9, 20 } do
      local e = E(fields(n))
      for i = 1, n do assert.are.equal(i, e["f" .. i]) end
      assert.is_nil(e["f" .. (n + 1)])
      assert.is_nil(e.missing)
      local count = 0
      for k, v in pairs(e) do
        count = count + 1
        assert.are.equal("f" .. v, k)
      end
      assert.are.equal(n, count)
    end
  end)

  it("keys of any kind read back, numbers by value (1 and 1.0 alike)", function()
    local E = Event "E"
    local key = {}
    local e = E { [1] = "one", [2.5] = "two and a half", [true] = "yes", [key] = "table" }
    assert.are.equal("one", e[1])
    assert.are.equal("one", e[1.0])
    assert.are.equal("two and a half", e[2.5])
    assert.are.equal("yes", e[true])
    assert.are.equal("table", e[key])
    assert.is_nil(e[false])
    assert.is_nil(e[{}])
  end)

  it("copies the fields: changing the table afterwards does not reach the value", function()
    local E = Event "E"
    for _, n in ipairs { 1, 9 } do
      local t = fields(n)
      local e = E(t)
      t.f1 = "changed"
      t.extra = true
      assert.are.equal(1, e.f1)
      assert.is_nil(e.extra)
    end
  end)

  it("prints and compares the same with few fields and with many", function()
    local E = Event "E"
    assert.are.equal('E{f1=1, f2=2}', tostring(E(fields(2))))
    assert.are.equal(E(fields(2)), E(fields(2)))
    assert.are.equal(E(fields(12)), E(fields(12)))
    assert.are_not.equal(E(fields(2)), E(fields(3)))
    assert.are.same(E { a = { 1, 2 } }, E { a = { 1, 2 } })
    assert.has_error(function() local e = E(fields(2)); e.f1 = 5 end)
    assert.has_error(function() local e = E(fields(9)); e.f1 = 5 end)
  end)

  it("a field named kind reads back with few fields and with many", function()
    local E = Event "E"
    assert.are.equal("drag", E({ kind = "drag" }).kind)
    local many = fields(9)
    many.kind = "drop"
    assert.are.equal("drop", E(many).kind)
    assert.are.equal("event", E({ x = 1 }).kind)
  end)

  it("an alertable error's message and title are checked with few fields and with many", function()
    local Oops = AlertableError "Oops"
    assert.has_error(function() Oops { title = "t" } end)
    local many = fields(9)
    assert.has_error(function() Oops(many) end)
    many.message = "m"
    assert.are.equal("m", Oops(many).message)
    many.title = 5
    assert.has_error(function() Oops(many) end)
    local root = View "Root"
    root:handleAlertErrors()
    root:report(Oops { message = "hi", title = "T" })
    assert.are.same({ "T", "hi" }, { responder.alert().title, responder.alert().message })
  end)
end)
