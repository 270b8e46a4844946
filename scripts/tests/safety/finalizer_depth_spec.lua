-- A finalizer Lua cannot call (scripts/fuzz-findings.md, F-leak; found by scripts/fuzz, seed
-- 20261137). A collection that runs pending finalizers at Lua's limit of 200 nested C calls fails
-- to call them ("C stack overflow", only a warning) and frees their userdata anyway. The fuzz
-- script got there through the test framework's error handler, which a limit re-raised into until
-- Lua gave up; here nested `pcall`s reach every depth. Before the fix, the retain of an outcome
-- finalized that way was never given back (LeakSanitizer, in the sanitizer step of scripts/test).
describe("finalizers", function()
  it("that Lua skips at its C-stack limit leak nothing", function()
    local root = View "Root" { View "Item" { id = "a" } }
    local E = Event "E"
    local function deep(n, extra)
      if n == 0 then
        -- the pending finalizers run here, at this depth (one more C call with `extra`)
        if extra then pcall(collectgarbage) else collectgarbage() end
        return
      end
      pcall(deep, n - 1, extra)
    end
    for depth = 90, 230 do
      for _, extra in ipairs({ false, true }) do
        (function() root:trigger(E {}) end)()  -- an outcome, garbage once this returns
        deep(depth, extra)
      end
    end
    assert.is_true(root:trigger(E {}) ~= nil)
  end)
end)
