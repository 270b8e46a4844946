-- Nodes and the tree (SPEC §2.2).

local function sampleTree()
  return View "Root" {
    View "Grid" {
      View "Item" { id = "a" },
      View "Item" { id = "b", selected = true },
    },
    View "Footer" { View "Item" { id = "c" } },
    theme = "dark",
  }
end

describe("View", function()
  it("makes a node with name, id, children and props", function()
    local root = sampleTree()
    assert.equal("Root", root.name)
    assert.is_nil(root.id)
    assert.is_nil(root.parent)
    assert.equal(2, #root.children)
    assert.equal("Grid", root.children[1].name)
    assert.equal("Footer", root.children[2].name)
    assert.equal("dark", root.props.theme)
    local b = root:find("#b")
    assert.equal("b", b.id)
    assert.equal(true, b.props.selected)
    assert.is_nil(b.props.id)
    assert.equal(root.children[1], b.parent)
  end)

  it("refuses a node past a hole in the children, which would have become a prop", function()
    assert.error_matches(function() return View "R" { [1] = View "A", [3] = View "C" } end,
      "bad child #3 in R { … } (children are the table's sequence, #1 to #1; a node at 3 follows a hole)", 1, true)
    assert.error_matches(function() return View "R" { [0] = View "A" } end, "bad child #0 in R", 1, true)
    -- other values at such keys stay props
    local r = View "R" { View "A", [5] = "five" }
    assert.equal("five", r.props[5])
    assert.equal(1, #r.children)
  end)

  it("accepts a bare name without a table", function()
    local n = View "Spacer"
    assert.equal("Spacer", n.name)
    assert.equal(0, #n.children)
    assert.equal("Spacer", tostring(n))
  end)

  it("prints as Name#id or Name", function()
    local root = sampleTree()
    assert.equal("Root", tostring(root))
    assert.equal("Item#b", tostring(root:find("#b")))
  end)

  it("children is a fresh array each time", function()
    local root = sampleTree()
    local kids = root.children
    assert.are_not.equal(kids, root.children)
    kids[3] = View "Intruder"
    table.remove(kids, 1)
    assert.equal(2, #root.children)
    assert.equal("Grid", root.children[1].name)
  end)

  it("props is a table the script may change", function()
    local root = sampleTree()
    root.props.theme = "light"
    root.props.extra = 7
    assert.equal("light", root.props.theme)
    assert.equal(7, root.props.extra)
  end)

  it("returns the same node object for the same node", function()
    local root = sampleTree()
    assert.equal(root:find("#b"), root.children[1].children[2])
  end)
end)

describe("node:path()", function()
  it("lists names from the root with ' > '", function()
    local root = sampleTree()
    assert.equal("Root > Grid > Item#b", root:find("#b"):path())
    assert.equal("Root", root:path())
  end)
end)

describe("find and findAll", function()
  it("find by Name returns the first match in document order", function()
    local root = sampleTree()
    assert.equal("a", root:find("Item").id)
  end)

  it("find by #id and Name#id", function()
    local root = sampleTree()
    assert.equal("c", root:find("#c").id)
    assert.equal("b", root:find("Item#b").id)
    assert.is_nil(root:find("Grid#b"))
    assert.is_nil(root:find("Nothing"))
  end)

  it("findAll returns every match in document order", function()
    local root = sampleTree()
    local all = root:findAll("Item")
    assert.equal(3, #all)
    assert.equal("a", all[1].id)
    assert.equal("b", all[2].id)
    assert.equal("c", all[3].id)
    assert.equal(0, #root:findAll("Nothing"))
  end)

  it("searches only the subtree of the node", function()
    local root = sampleTree()
    local footer = root:find("Footer")
    assert.is_nil(footer:find("#a"))
    assert.equal(1, #footer:findAll("Item"))
  end)
end)

describe("add and remove", function()
  it("appends a child", function()
    local root = sampleTree()
    local n = View "New"
    root:add(n)
    assert.equal(3, #root.children)
    assert.equal(n, root.children[3])
    assert.equal(root, n.parent)
  end)

  it("inserts at a position", function()
    local root = sampleTree()
    local n = View "First"
    root:add(n, 1)
    assert.equal(n, root.children[1])
    assert.equal("Grid", root.children[2].name)
  end)

  it("a position out of range is an error that shows it", function()
    local root = View "Root" { View "A" }
    assert.error_matches(function() root:add(View "B", 7) end,
      "bad argument #2 to 'add' (position (1..2) expected, got number 7)", 1, true)
  end)

  it("moves a child that already had a parent", function()
    local root = sampleTree()
    local b = root:find("#b")
    local footer = root:find("Footer")
    footer:add(b)
    assert.equal(footer, b.parent)
    assert.equal(1, #root:find("Grid").children)
    assert.equal(2, #footer.children)
    assert.equal("Root > Footer > Item#b", b:path())
  end)

  it("refuses to add a node into its own subtree", function()
    local root = sampleTree()
    local grid = root:find("Grid")
    assert.error_matches(function() grid:add(root) end, "would create a cycle")
    assert.error_matches(function() root:find("#a"):add(grid) end, "would create a cycle")
    assert.error_matches(function() grid:add(grid) end, "would create a cycle")
    assert.equal(root, grid.parent)
  end)

  it("remove detaches the node", function()
    local root = sampleTree()
    local b = root:find("#b")
    b:remove()
    assert.is_nil(b.parent)
    assert.is_nil(root:find("#b"))
    assert.equal("Item#b", b:path())
  end)
end)

describe("mount", function()
  it("makes the root the application's tree", function()
    local root = sampleTree()
    assert.is_nil(responder.mounted())
    mount(root)
    assert.equal(root, responder.mounted())
  end)

  it("events can be triggered in unmounted trees", function()
    local A = Event "A"
    local root = sampleTree()
    root:handleEvent(A, function() end)
    assert.handled(root:find("#b"):trigger(A()), root)
  end)
end)

describe("the call form of a constructor", function()
  it("View(\"Name\", { … }) is View \"Name\" { … }; another second argument is an error", function()
    local x = View("X", { View "Y", id = "i", color = "red" })
    assert.equal("X#i", tostring(x))
    assert.equal(1, #x.children)
    assert.equal("red", x.props.color)
    assert.error_matches(function() View("Z", 5) end,
      "bad argument #2 to 'View' (table of children and properties expected, got number)", 1, true)
    local tapped = false
    local b = Button("T", { action = function() tapped = true end })
    tap(b)
    assert.is_true(tapped)
    local s = State("")
    local field = TextField("Name", { text = s:binding() })
    typeText(field, "ab")
    assert.equal("ab", s.value)
  end)
end)
