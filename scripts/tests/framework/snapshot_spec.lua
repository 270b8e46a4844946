-- assert.snapshot: stored in __snapshots__/snapshot_spec.snap beside this file.
-- (Mismatches, writing and --update-snapshots are covered by Tests/ResponderCLITests, since a
-- mismatch here would be accepted by an --update-snapshots run.)

describe("snapshots", function()
  it("matches the stored text", function()
    assert.snapshot("multi-line text", "line one\n  line two\n\nline four\n")
    assert.snapshot("single line", "just one line")
  end)

  it("accepts values with tostring", function()
    local v = setmetatable({}, { __tostring = function() return "Root > Grid > Item#b" end })
    assert.snapshot("tostring value", v)
  end)
end)
