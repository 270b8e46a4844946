-- Issue 10: any callable (a busted spy, a table with __call) is taken wherever a function is.
local Ping = Event "Ping"

describe("callables", function()
  it("responders take spies", function()
    local s = spy.new(function() end)
    local root = View "Root"
    root:handleEvent(Ping, s)
    local o = root:trigger(Ping {})
    assert.handled(o, root)
    assert.spy(s).was.called(1)
  end)

  it("a callable table receives the value and the context", function()
    local seen
    local callable = setmetatable({}, { __call = function(self, e, ctx) seen = { e.name, ctx.node } end })
    local root = View "Root"
    root:receiveEvent(callable)
    root:trigger(Ping {})
    assert.same({ "Ping", root }, seen)
  end)

  it("onTapGesture, subscribe, Button actions, addAction, Binding and on.tap take spies", function()
    local tapSpy, subSpy, actionSpy, addSpy, onSpy = spy.new(function() end), spy.new(function() end),
      spy.new(function() end), spy.new(function() end), spy.new(function() end)
    local card = View "Card"
    card:onTapGesture(tapSpy)
    card:onTapGesture { perform = tapSpy, count = 2 }
    tap(card)
    tap(card, 2)
    assert.spy(tapSpy).was.called(2)

    local root = View "Root" { View "Child" }
    root:find("Child"):subscribe(Ping, subSpy)
    local pub = root:publisher(Ping)
    pub(Ping {})
    assert.spy(subSpy).was.called(1)

    local b = Button "B" { action = actionSpy }
    b:addAction(addSpy)
    b.on.tap(onSpy)
    tap(b)
    assert.spy(actionSpy).was.called(1)
    assert.spy(addSpy).was.called(1)
    assert.spy(onSpy).was.called(1)

    local store = 0
    local bind = Binding { get = spy.new(function() return store end), set = spy.new(function(v) store = v end) }
    bind.value = 3
    assert.equal(3, bind.value)
  end)

  it("a table without __call is still refused", function()
    assert.error_matches(function() View "V":handleEvent(Ping, {}) end,
      "bad argument #2 to 'handleEvent' %(function expected, got table%)")
  end)
end)
