-- checkout.lua: a cart with express shipping, and a bug that `responder explore` finds.
--
--   responder explore scripts/examples/checkout.lua
--
-- The screen counts items, ships them standard or express, and shows a summary line. Express
-- shipping is priced by the number of items it covers. The deliberate bug: that number is taken
-- when Express is switched on and only counted down afterwards (Remove), never up (Add). So
-- switching Express on with an empty cart, adding an item and removing it again drives the
-- count below zero, and pricing it fails inside the Remove button's action (a LuaError).
-- Exactly that sequence of three actions is the minimal one; explore shrinks to it and writes
-- it as a spec.

local Help = Event "HelpRequested"

local count = State(0)
local express = State(false)
local note = State("")
local expressItems = 0 -- items express shipping covers (the bug: never counted up)

local fees = { [0] = "$0", "$5", "$8", "$10", "$12" }
local function fee(items) return fees[math.min(items, 4)] end

local summary = View "Summary" { id = "summary", text = "0 items, standard" }
local function refresh()
  local shipping = express.value and ("express " .. fee(expressItems)) or "standard"
  summary.props.text = count.value .. " items, " .. shipping
end

local screen = View "Checkout" {
  Button "Add" { id = "add", action = function()
    count.value = count.value + 1
    refresh()
  end },
  Button "Remove" { id = "remove", action = function()
    if count.value == 0 then return end
    count.value = count.value - 1
    if express.value then expressItems = expressItems - 1 end
    refresh()
  end },
  Toggle "Express" { id = "express", isOn = express:binding() },
  TextField "Note" { id = "note", text = note:binding() },
  EventButton "Help" { id = "help", event = Help() },
  summary,
}

screen:onChange(express, function(on)
  expressItems = on and count.value or 0
  refresh()
end)
screen:handleEvent(Help, function() summary.props.help = true end)
mount(screen)

-- Steering explore: what to type into the note, and what must always hold.
explore.inputs("#note", { "", "leave at the door", "🙂" })
explore.invariant("summary shows the item count", function(root)
  return root:find("#summary").props.text:match("^%d+") == tostring(count.value)
end)
