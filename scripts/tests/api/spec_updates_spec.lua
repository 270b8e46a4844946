-- SPEC updates of issue 10: the publisher's position on its own node, handleAlertErrors and
-- check 4, the `type` of violation records, `undeclared` trace steps.
local Shake = Event "Shake"

describe("a publisher's own node", function()
  it("a subscriber registered before publisher is below it; one registered after is not", function()
    local log = {}
    local root = View "Root"
    root:subscribe(Shake, function() log[#log + 1] = "before" end)
    local pub = root:publisher(Shake, { destination = "allLevels" })
    root:subscribe(Shake, function() log[#log + 1] = "after" end)
    mount(root)
    assert.equal(1, pub(Shake {}))
    assert.same({ "before" }, log)
  end)

  it("check 5 flags a subscriber whose only publisher on its node comes before it", function()
    responder.clearWarnings()
    local root = View "Root"
    root:publisher(Shake)
    root:subscribe(Shake, function() end)
    mount(root)
    local w = responder.warnings()
    assert.equal(1, #w)
    assert.equal("subscriberWithoutPublisher", w[1].kind)
    assert.equal(Shake, w[1].type)
  end)

  it("check 5 accepts a publisher on the subscriber's node created after it", function()
    assert.no_warnings(function()
      local root = View "Root"
      root:subscribe(Shake, function() end)
      root:publisher(Shake)
      mount(root)
    end)
  end)
end)

describe("check 4 and handleAlertErrors", function()
  local LoginFailed = AlertableError "LoginFailed"
  local Plain = Error "Plain"

  it("handleAlertErrors above answers for declared alertable errors", function()
    assert.no_warnings(function()
      local form = View "Form"
      form:reports(LoginFailed)
      local root = View "Root" { form }
      root:handleAlertErrors()
      mount(root)
    end)
  end)

  it("but not for errors that are not alertable; the record carries the missing type", function()
    responder.clearWarnings()
    local form = View "Form"
    form:reports(Plain)
    local root = View "Root" { form }
    root:handleAlertErrors()
    mount(root)
    local w = responder.warnings()
    assert.equal(1, #w)
    assert.equal("missingResponder", w[1].kind)
    assert.equal(Plain, w[1].type)
  end)
end)

describe("the trace tells the truth", function()
  local Known, Other = Event "Known", Event "Other"
  it("a value that fails a declaration's check shows undeclared; the record has its type", function()
    responder.clearWarnings()
    local leaf = View "Leaf"
    local root = View "Root" { leaf }
    root:triggers(Known)
    root:handleEvent(function() end)
    local o = leaf:trigger(Other {})
    assert.equal("undeclared", o.trace[1].decision)
    assert.equal("undeclaredEvent", responder.warnings()[1].kind)
    assert.equal(Other, responder.warnings()[1].type)
    local ok = leaf:trigger(Known {})
    assert.equal("declared", ok.trace[1].decision)
  end)
end)

describe("messages that say what to do", function()
  it("trigger with a type instead of a value says how to make one", function()
    local Ping = Event "Ping"
    assert.error_matches(function() View "R":trigger(Ping) end,
      "bad argument #1 to 'trigger' %(event expected, got event type Ping; make a value with Ping {}%)")
  end)

  it("advance and sleep show a bad number", function()
    assert.error_matches(function() advance(-1) end,
      "bad argument #1 to 'advance' %(seconds %(non%-negative finite number%) expected, got number %-1%)")
  end)
end)
