-- Run by scripts/dispatch-floor under plain lua5.4: the pure-Lua dispatch reference of
-- responder-bench (Sources/ResponderBench/Lua/pure_dispatch.lua) against the C floor module
-- (scripts/bench/dispatch_floor.c), on the benchmark's workload: a chain of `depth` nodes, a typed
-- handler at the root, a non-matching typed receiver on every 10th node, `leaf:trigger(E { item = i })`.
-- Prints the median of 7 alternating samples per side (CPU time, os.clock) and the ratio.
local referencePath, floorFolder = arg[1], arg[2]
package.cpath = floorFolder .. "/?.so;" .. package.cpath
local F = require "floor"
local R = dofile(referencePath)

local function chainPure(depth)
  local E, Other = R.Event "E", R.Event "Other"
  local root = R.View "Root"
  R.handleEvent(root, E, function() end)
  local cur = root
  for i = 2, depth do
    local n = R.View "N"
    if i % 10 == 0 then R.receiveEvent(n, Other, function() return true end) end
    R.add(cur, n)
    cur = n
  end
  local trigger = R.trigger
  return function(count) for i = 1, count do trigger(cur, E { item = i }) end end
end

local function chainFloor(depth)
  local function Type() return setmetatable({}, { __call = function(t, fields) return F.value(t, fields) end }) end
  local E, Other = Type(), Type()
  local root = F.node(nil)
  F.handle(root, E, function() end)
  local cur = root
  for i = 2, depth do
    local n = F.node(cur)
    if i % 10 == 0 then F.handle(n, Other, function() return true end) end
    cur = n
  end
  local trigger = F.trigger
  return function(count) for i = 1, count do trigger(cur, E { item = i }) end end
end

local function sample(f, n)
  local t = os.clock()
  f(n)
  return (os.clock() - t) / n * 1e6
end

local function median(list)
  table.sort(list)
  return list[(#list + 1) // 2]
end

for _, depth in ipairs { 1, 100 } do
  local pure, floor = chainPure(depth), chainFloor(depth)
  local n = depth == 1 and 400000 or 40000
  pure(1000)
  floor(1000)
  local ps, fs = {}, {}
  for r = 1, 7 do
    ps[r] = sample(pure, n)
    fs[r] = sample(floor, n)
  end
  local p, f = median(ps), median(fs)
  print(string.format("depth %3d: pure-Lua reference %.3f µs (%.3f–%.3f), C floor %.3f µs (%.3f–%.3f), floor/reference %.2f×",
    depth, p, ps[1], ps[#ps], f, fs[1], fs[#fs], f / p))
end
