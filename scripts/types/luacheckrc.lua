-- luacheck configuration for ResponderSandbox scenarios and specs: Lua 5.4, busted's test names
-- (`describe`, `it`, `assert`, `spy`, …) and the responder globals, read-only.
--   luacheck --config scripts/types/luacheckrc.lua my_scenarios/
-- or, in your own `.luacheckrc`: return dofile("scripts/types/luacheckrc.lua")
-- (a test checks that read_globals is exactly the globals a script sees beyond Lua's own).
return {
  std = "lua54+busted",
  read_globals = {
    "responder", "Event", "Error", "AlertableError", "LuaError", "CancellationError",
    "View", "EventButton", "mount", "tap",
    "reset", "warnings", "clearWarnings", "lastTrace", "alert", "dismissAlert", "mounted",
    "State", "Binding", "Button", "TextField", "SecureField", "Slider", "Stepper", "Toggle", "SegmentedControl",
    "typeText", "commit", "focus", "blur", "slide", "increment", "decrement", "toggle", "selectSegment",
    "sendActions", "Preference", "post", "AsyncButton", "sleep", "advance", "now", "after", "every", "task",
    "explore",
  },
}
