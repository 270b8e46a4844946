-- Re-checks scripts/examples/strict_screen.lua: triggers/reports under strict safety, all checks satisfied.

local AddToCart = Event "AddToCart"
local Checkout = Event "Checkout"
local CartEvent = Event "CartEvent"
local RemoveFromCart = Event("RemoveFromCart", CartEvent)
local OutOfStock = Error "OutOfStock"
local Recover = Event "Recover"

local function build()
  local state = { stock = { widget = 1, gadget = 0 }, cart = {}, log = {} }
  local function productRow(name)
    local row = View "Product" { id = name, EventButton "Add" { event = AddToCart { product = name } } }
    row:triggers(AddToCart)
    return row
  end
  local list = View "ProductList" { productRow("widget"), productRow("gadget") }
  list:triggers(AddToCart)
  local cartView = View "Cart" {
    EventButton "Remove widget" { event = RemoveFromCart { product = "widget" } },
    EventButton "Checkout" { event = Checkout() },
  }
  cartView:triggers(CartEvent, Checkout)
  local screen = View "Shop" { list, cartView }
  screen:safetyLevel("strict")
  screen:reports(OutOfStock)
  screen:triggers(AddToCart, CartEvent, Checkout, Recover)
  screen:handleEvent(AddToCart, function(e)
    if (state.stock[e.product] or 0) == 0 then error(OutOfStock { product = e.product }) end
    state.stock[e.product] = state.stock[e.product] - 1
    state.cart[#state.cart + 1] = e.product
  end)
  screen:catchError(OutOfStock, function(err) return Recover { product = err.product } end)
  screen:handleEvent(Recover, function(e) state.log[#state.log + 1] = "recover " .. e.product end)
  screen:handleEvent(CartEvent, function(e)
    for i, p in ipairs(state.cart) do if p == e.product then table.remove(state.cart, i) break end end
  end)
  screen:handleEvent(Checkout, function() state.log[#state.log + 1] = "checkout " .. #state.cart end)
  return screen, list, cartView, state
end

describe("strict screen example", function()
  it("mounts under strict safety without raising", function()
    local screen = build()
    assert.has_no_error(function() mount(screen) end)
    assert.equal(0, #responder.warnings())
  end)

  it("every action is handled without a violation", function()
    local screen, list, cartView, state = build()
    mount(screen)
    assert.handled(tap(list:find("Product#widget"):find("EventButton")), screen)
    local o = tap(list:find("Product#gadget"):find("EventButton"))
    assert.handled(o, screen)
    assert.equal(Recover, o.value.type)
    assert.handled(tap(cartView.children[1]), screen)
    assert.handled(tap(cartView.children[2]), screen)
    assert.same({}, state.cart)
    assert.same({ "recover gadget", "checkout 0" }, state.log)
    assert.equal(0, #responder.warnings())
  end)

  it("removing the typed catchError makes mount raise under strict", function()
    -- the same declaration with only an untyped catch: OutOfStock has no typed responder
    local s2 = View "Shop" { View "Leaf" }
    s2:safetyLevel("strict")
    s2:reports(OutOfStock)
    s2:catchError(function() return Recover() end) -- untyped does not count
    assert.error_matches(function() mount(s2) end, "missing responder")
  end)

  it("an undeclared event raises under strict", function()
    local screen, list = build()
    mount(screen)
    local Stray = Event "Stray"
    screen:handleEvent(Stray, function() end)
    assert.error_matches(function() list:trigger(Stray()) end, "undeclared event Stray{}")
  end)
end)
