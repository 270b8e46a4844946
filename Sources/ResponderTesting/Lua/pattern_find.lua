-- Pattern matching for `--pattern`/`--exclude-pattern` on file names and the check of
-- `--filter`/`--filter-out` (LuaPatternMatcher.swift): whether string s contains the Lua pattern p.
local s, p = ...
local ok, found = pcall(string.find, s, p)
if not ok then error(found, 0) end  -- a malformed pattern: Lua's message, without a position
return found ~= nil
