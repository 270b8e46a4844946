-- Re-checks scripts/examples/item_grid.lua: selecting an item triggers ItemSelected handled by the screen.

local ItemSelected = Event "ItemSelected"

local function build(items)
  local grid = View "Grid" {}
  for _, name in ipairs(items) do
    local item = View "Item" { id = name }
    item:onTapGesture { trigger = ItemSelected { item = name } }
    grid:add(item)
  end
  grid:triggers(ItemSelected)
  local screen = View "Screen" { View "Title" { text = "Fruits" }, grid }
  screen:handleEvent(ItemSelected, function(event, ctx) ctx.node.props.selected = event.item end)
  return screen, grid
end

describe("item grid example", function()
  it("mounts without warnings", function()
    local screen = build { "apple", "banana", "fig" }
    assert.no_warnings(function() mount(screen) end)
  end)

  it("tapping an item selects it at the screen", function()
    local screen = build { "apple", "banana", "fig" }
    mount(screen)
    local o = tap(screen:find("Item#banana"))
    assert.handled(o, screen)
    assert.equal("banana", screen.props.selected)
    tap(screen:find("Item#fig"))
    assert.equal("fig", screen.props.selected)
  end)

  it("the event bubbles Item -> Grid -> Screen and never reaches sibling items", function()
    local screen, grid = build { "apple", "banana" }
    local siblingSaw = false
    screen:find("Item#apple"):receiveEvent(function() siblingSaw = true end)
    mount(screen)
    local o = tap(screen:find("Item#banana"))
    assert.is_false(siblingSaw)
    assert.equal(table.concat({
      'event ItemSelected{item="banana"} from Item#banana',
      "  Grid         #1 triggers(ItemSelected)       declared",
      "  Screen       #1 handleEvent(ItemSelected)    handled",
    }, "\n"), tostring(o.trace))
  end)

  it("the example script itself runs under strict safety", function()
    local screen = build { "apple" }
    screen:safetyLevel("strict")
    mount(screen)
    assert.handled(tap(screen:find("Item#apple")), screen)
  end)
end)
