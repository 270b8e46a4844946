-- The driver of one `responder explore` run (see ExploreHost.swift): returns a function that
-- calls a module function by name (a tail call, so that errors keep the callee's place).
local R = require "responder"
local fns = {}
print = function() end -- luacheck: ignore 121 (explore mutes the script's output)
return function(name, ...)
  if name == "cancelTask" then
    local t = R.explore.tasks()[...]
    if t then t:cancel() end
    return
  end
  local f = fns[name]
  if f == nil then f = R[name]; fns[name] = f end
  return f(...)
end
