-- Deep trees and the selector index (issue 7, items 2, 8 and 9; issue 13's find row).

local Ping = Event "Ping"

local function chain(depth)
  local root = View "Root"
  local n = root
  for _ = 1, depth do
    local c = View "N"
    n:add(c)
    n = c
  end
  return root, n
end

describe("a 200,000-deep chain", function()
  it("dispatches, finds, mounts, resets and is collected", function()
    local root, leaf = chain(200000)
    leaf { id = "leaf" }
    root:handleEvent(Ping, function() end)
    assert.is_true(leaf:trigger(Ping()).handled)
    assert.equal(leaf, root:find("#leaf"))
    assert.equal(leaf, root:find("N#leaf"))
    assert.equal(200000, #root:findAll("N"))
    mount(root)
    assert.equal(leaf, root:find("#leaf"))
    responder.reset()
    root, leaf = nil, nil
    collectgarbage()
    collectgarbage()
  end)
end)

describe("find by id", function()
  it("keeps document order and subtree scoping", function()
    local root = View "Root" {
      View "A" { View "Item" { id = "x", tag = 1 } },
      View "B" { View "Item" { id = "x", tag = 2 }, View "Other" { id = "y" } },
    }
    assert.equal(1, root:find("#x").props.tag)
    local b = root:find("B")
    assert.equal(2, b:find("#x").props.tag)
    assert.is_nil(root:find("A"):find("#y"))
    assert.is_nil(root:find("Other#x"))
    assert.equal("Other", root:find("Other#y").name)
    -- a node is in its own subtree
    assert.equal(b:find("#y"), b:find("#y"):find("#y"))
    -- moving nodes changes the answer
    root:find("A"):remove()
    assert.equal(2, root:find("#x").props.tag)
    root:add(View "C" { View "Item" { id = "x", tag = 3 } }, 1)
    assert.equal(3, root:find("#x").props.tag)
    -- an id set by calling the node again
    local late = View "Late"
    root:add(late)
    assert.is_nil(root:find("#late"))
    late { id = "late" }
    assert.equal(late, root:find("#late"))
    late { id = "renamed" }
    assert.is_nil(root:find("#late"))
    assert.equal(late, root:find("#renamed"))
  end)

  it("does not keep dropped nodes", function()
    local weak = setmetatable({}, { __mode = "v" })
    do
      for i = 1, 3000 do weak[i] = View "Tmp" { id = "t" .. (i % 7) } end
    end
    collectgarbage()
    collectgarbage()
    assert.is_nil(next(weak))
    local root = View "Root" { View "Tmp" { id = "t1" } }
    assert.equal("t1", root:find("#t1").id)
  end)
end)

describe("onAppear", function()
  it("fires once per node when appear handlers add nodes", function()
    local counts = {}
    local function make(depth, max)
      local n = View("L" .. depth)
      n:onAppear(function()
        counts[depth] = (counts[depth] or 0) + 1
        if depth < max then n:add(make(depth + 1, max)) end
      end)
      return n
    end
    local root = View "Root"
    mount(root)
    root:add(make(1, 12))
    for depth = 1, 12 do assert.equal(1, counts[depth], "depth " .. depth) end
    responder.reset()
  end)

  it("fires again when a node is added again by a handler", function()
    local seen = {}
    local root = View "Root"
    local a, b = View "A", View "B"
    b:onAppear(function() seen[#seen + 1] = "B" end)
    a:onAppear(function()
      seen[#seen + 1] = "A"
      root:add(b)
      b:remove()
      root:add(b)
    end)
    a:add(View "Kid")
    mount(root)
    root:add(a)
    assert.same({ "A", "B", "B" }, seen)
    responder.reset()
  end)
end)
