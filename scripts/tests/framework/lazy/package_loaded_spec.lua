-- busted users' package.loaded tricks on the lazily loaded parts: a part whose package.loaded
-- entry was cleared before its first use is loaded by the next require and works; an insulated
-- block that cleared entries gets them back. `package` is a global when --lpath is given (as
-- under busted); without it `require` still gives the built-in parts.
local loaded = package and package.loaded
local luassert, say = require("luassert"), require("say")

describe("package.loaded and the lazily loaded parts", function()
  it("a part required after its entry was cleared works (first use)", function()
    if loaded then loaded["luassert.spy"], loaded["luassert.match"] = nil, nil end
    local s = require("luassert.spy").new(function() end)
    s(7)
    assert.spy(s).was.called_with(require("luassert.match").is_number())
  end)

  insulate("cleared inside insulate", function()
    it("say and luassert are required again", function()
      if loaded then loaded.say, loaded.luassert = nil, nil end
      assert.equal(assert, require("luassert"))
      assert.equal("function", type(require("say").set))
    end)
  end)

  it("the entries are back after the insulated block", function()
    if loaded then
      assert.equal(luassert, loaded.luassert)
      assert.equal(say, loaded.say)
    end
    assert.equal(luassert, require("luassert"))
  end)
end)
