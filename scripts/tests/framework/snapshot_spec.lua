-- assert.snapshot: stored in __snapshots__/snapshot_spec.snap beside this file.
-- (Mismatches, writing and --update-snapshots are covered by Tests/ResponderCLITests, since a
-- mismatch here would be accepted by an --update-snapshots run.)

describe("snapshots", function()
  it("matches the stored text", function()
    assert.snapshot("multi-line text", "line one\n  line two\n\nline four\n")
    assert.snapshot("single line", "just one line")
  end)

  it("one name asserted again in this file: the same text passes, another is refused", function()
    assert.snapshot("single line", "just one line")
    local ok, e = pcall(assert.snapshot, "single line", "another text")
    assert.is_false(ok)
    assert.matches("was asserted earlier in this file with another text", tostring(e))
  end)

  it("accepts values with tostring", function()
    local v = setmetatable({}, { __tostring = function() return "Root > Grid > Item#b" end })
    assert.snapshot("tostring value", v)
  end)
end)
