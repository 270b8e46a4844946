-- Pattern matching of file names, for `--pattern` and `--exclude-pattern` (see
-- LuaPatternMatcher.swift): whether string s contains the Lua pattern p.
local s, p = ...
return string.find(s, p) ~= nil
