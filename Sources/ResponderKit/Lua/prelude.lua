-- The kit prelude's entry (see EnvironmentPrelude.swift). Called with its compiled parts, it
-- returns the function the host calls with its helpers K and the module table M: that runs the
-- parts in order, sharing one private table between them, and returns what the last returns.
local environment, async = ...
return function(K, M)
  local S = {}
  environment(K, M, S)
  return async(K, M, S)
end
