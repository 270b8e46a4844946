-- Found by: responder explore scripts/examples/checkout.lua --seed 2 (run 7, step 6)
-- Shrunk from 6 to 3 actions in 16 replays.
-- Fails with: LuaError: scripts/examples/checkout.lua:25: attempt to concatenate a nil value
describe("explore checkout.lua seed 2", function()
  it("reports no LuaError", function()
    local root = explore.scenario("scripts/examples/checkout.lua", { seed = -5675428353332088807 })
    toggle(root:find("#express"))
    tap(root:find("#add"))
    explore.noLuaError(function() tap(root:find("#remove")) end)
  end)
end)
