-- `say`: namespaced message strings (the module luassert formats its failure messages with).
-- Written for responder test; behaves as the `say` 1.4 rock: say:set_namespace, say:set_fallback,
-- say:set, say(key, vars) (each var through tostring, then string.format), say[namespace].
local registry = {}
local current, fallback

local say = {
  _VERSION = "Say 1.4 (responder test)",
  _registry = registry,
}

local function ensure(ns)
  if registry[ns] == nil then registry[ns] = {} end
end

function say:set_namespace(ns) current = ns; ensure(ns) end
function say:set_fallback(ns) fallback = ns; ensure(ns) end
function say:set(key, value) registry[current][key] = value end

setmetatable(say, {
  __call = function(_, key, vars)
    if vars ~= nil and type(vars) ~= "table" then
      error(("expected parameter table to be a table, got '%s'"):format(type(vars)), 2)
    end
    vars = vars or {}
    local count = vars.n or 0
    if #vars > count then count = #vars end
    vars.n = count
    local text = registry[current][key]
    if text == nil then text = registry[fallback][key] end
    if text == nil then return nil end
    text = tostring(text)
    if count == 0 then return text end
    local strings = {}
    for i = 1, count do strings[i] = tostring(vars[i]) end
    return text:format(table.unpack(strings, 1, count))
  end,
  __index = function(_, ns) return registry[ns] end,
})

say:set_fallback("en")
say:set_namespace("en")
return say
