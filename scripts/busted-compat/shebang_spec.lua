#!/usr/bin/env busted
-- A spec file may start with a `#!` line: busted loads it as lua's loadfile does, skipping that
-- line and keeping the line numbers of the rest.
describe("a spec file starting with #!", function()
  it("loads, and its lines keep their numbers", function()
    local ok, e = pcall(function() error("here") end)
    assert.is_false(ok)
    assert.matches("shebang_spec%.lua:6: here$", e)
  end)

  it("reports a failure at its own line", function()
    assert.equal(1, 2)
  end)
end)
