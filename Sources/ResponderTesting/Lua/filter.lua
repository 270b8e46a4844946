-- `responder test --filter`: whether a test's full name matches the filter, as a Lua pattern
-- or, when the pattern is malformed, as plain text.
local s, p = ...
local ok, r = pcall(string.find, s, p)
if ok then return r ~= nil end
return string.find(s, p, 1, true) ~= nil
