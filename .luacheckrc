-- luacheck configuration for every .lua file in the repository (scripts/ and Sources/*/Lua/).
std = "lua54"
max_line_length = 170
-- Responders, actions and hooks receive (value, ctx) and the like; many use only the first.
unused_args = false
-- `local root, grid, item = tree()` names every node even when a test uses only some.
unused_secondaries = false

-- The `responder` module's public names are globals in every script the CLI runs (SPEC §2),
-- and so are the pattern kit's (§2.9): the list shipped for users (scripts/types/luacheckrc.lua,
-- tested against the runtime), found relative to this file by luacheck's config loader.
local responder_globals = require("scripts.types.luacheckrc").read_globals
read_globals = responder_globals

-- Specs also get busted's names.
files["scripts/tests"] = { std = "+busted" }
files["scripts/busted-compat"] = { std = "+busted" }
-- Lifetime tests drop their references (`root = nil`) so that the collector may run.
files["scripts/tests/safety"] = { std = "+busted", ignore = { "311" } }
files["scripts/tests/kit/lifetimes_spec.lua"] = { std = "+busted", ignore = { "311" } }
-- The kit replaces coroutine.resume and coroutine.wrap with versions that pass limits on.
files["Sources/ResponderKit/Lua/async.lua"] = { globals = { "coroutine" } }

-- The editor definitions declare every global (LuaLS annotations on stub functions).
files["scripts/types/responder.lua"] = { std = "+busted", globals = responder_globals, unused = false, ignore = { "12" } }
