-- strict_screen.lua: a screen with triggers/reports declarations under strict safety.
--
-- Under "strict", every violation aborts the action with an error. This screen satisfies every
-- check: each declared type has a typed responder after the declaration (check 4), every value
-- that passes a declaration is declared (check 3), and nothing reaches the root unhandled
-- (checks 1 and 2).

local AddToCart = Event "AddToCart"
local Checkout = Event "Checkout"
local CartEvent = Event "CartEvent"
local RemoveFromCart = Event("RemoveFromCart", CartEvent)
local OutOfStock = Error "OutOfStock"
local Recover = Event "Recover"

local stock = { widget = 1, gadget = 0 }
local cart = {}

local function productRow(name)
  local row = View "Product" { id = name, EventButton "Add" { event = AddToCart { product = name } } }
  row:triggers(AddToCart)
  return row
end

local list = View "ProductList" { productRow("widget"), productRow("gadget") }
list:triggers(AddToCart)                  -- nested declarations aggregate upward

local cartView = View "Cart" {
  EventButton "Remove widget" { event = RemoveFromCart { product = "widget" } },
  EventButton "Checkout" { event = Checkout() },
}
cartView:triggers(CartEvent, Checkout)     -- RemoveFromCart passes as a CartEvent subtype

local screen = View "Shop" { list, cartView }
screen:safetyLevel("strict")
screen:reports(OutOfStock)
screen:triggers(AddToCart, CartEvent, Checkout, Recover)

screen:handleEvent(AddToCart, function(e)
  if (stock[e.product] or 0) == 0 then error(OutOfStock { product = e.product }) end
  stock[e.product] = stock[e.product] - 1
  cart[#cart + 1] = e.product
  print("added " .. e.product)
end)
screen:catchError(OutOfStock, function(err)       -- a typed catchError satisfies check 4
  print("out of stock: " .. err.product)
  return Recover { product = err.product }
end)
screen:handleEvent(Recover, function(e) print("suggesting an alternative to " .. e.product) end)
screen:handleEvent(CartEvent, function(e)        -- a parent-type handler covers RemoveFromCart
  for i, p in ipairs(cart) do if p == e.product then table.remove(cart, i) break end end
  print("removed " .. e.product)
end)
screen:handleEvent(Checkout, function() print("checkout with " .. #cart .. " item(s)") end)

mount(screen)                                   -- strict: would raise on a missing responder

tap(screen:find("Product#widget"):find("EventButton"))
tap(screen:find("Product#gadget"):find("EventButton"))
tap(cartView.children[1])
tap(cartView.children[2])

print(#responder.warnings() .. " warnings under strict safety")

-- What strict means: an undeclared event from inside the screen aborts the action with an error.
local Stray = Event "Stray"
screen:handleEvent(Stray, function() end)
local ok, err = pcall(function() list:trigger(Stray()) end)
print("a stray event: " .. tostring(err))
