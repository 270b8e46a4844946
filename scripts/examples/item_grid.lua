-- item_grid.lua: the item-selection grid from HierarchyResponder's README.
--
-- A screen shows a grid of items. Tapping an item triggers ItemSelected{item = …} from the item;
-- the item knows nothing about who cares. The event bubbles Item -> Grid -> Screen, and the
-- screen, which owns the selection state, handles it. The grid declares what its subtree
-- triggers, and the screen has a typed handler for it, so the mount-time checks are satisfied.

local ItemSelected = Event "ItemSelected"

local items = { "apple", "banana", "cherry", "date", "elderberry", "fig" }

local grid = View "Grid" {}
for _, name in ipairs(items) do
  local item = View "Item" { id = name, label = name:sub(1, 1):upper() .. name:sub(2) }
  item:onTapGesture { trigger = ItemSelected { item = name } }
  grid:add(item)
end
grid:triggers(ItemSelected)

local screen = View "Screen" { View "Title" { text = "Fruits" }, grid, selected = nil }
screen:handleEvent(ItemSelected, function(event, ctx)
  ctx.node.props.selected = event.item
  print(string.format("selected %-10s (from %s, handled by %s)", event.item, tostring(ctx.origin), tostring(ctx.node)))
end)

mount(screen)

for _, name in ipairs { "banana", "fig", "apple" } do
  local outcome = tap(screen:find("Item#" .. name))
  assert(outcome.handled and outcome.by == screen)
end

print("current selection: " .. screen.props.selected)
print()
print(responder.lastTrace())
print(#responder.warnings() .. " warnings")
