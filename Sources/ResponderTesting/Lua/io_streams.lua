-- `io` for spec files under responder test: the standard streams and in-memory temporary files,
-- nothing that reaches the file system. Busted suites and the libraries they load (Penlight reads
-- `io.stdout` when it loads) expect them; `print` already writes to stdout, stdin reads as empty,
-- and a `tmpfile()` keeps its bytes in Lua strings (counted against the state's memory limit).
-- io.open/io.lines/io.popen/io.input/io.output fail with a message and errno 13 (EACCES).
local ctx = ...
local host = ctx.host
local type, pairs, tostring, tonumber, select, setmetatable, error = type, pairs, tostring, tonumber, select,
      setmetatable, error
local concat, sformat = table.concat, string.format

local state = setmetatable({}, { __mode = "k" })  -- file userdata -> { kind, data, pos, closed, label }
local methods = {}
local FileMT = { __index = methods, __name = "FILE*" }
FileMT.__tostring = function(f)
  local s = state[f]
  if s.closed then return "file (closed)" end
  return s.label
end

local function new_file(kind)
  local f = host.userdata(FileMT)
  state[f] = { kind = kind, data = "", pos = 0, label = sformat("file (%p)", f) }
  return f
end

local function open_state(f, fname)
  local s = state[f]
  if s == nil then error("bad argument #1 to '" .. fname .. "' (FILE* expected, got " .. type(f) .. ")", 3) end
  if s.closed then error("attempt to use a closed file", 3) end
  return s
end

function methods.write(f, ...)
  local s = open_state(f, "write")
  local parts = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    local t = type(v)
    if t ~= "string" and t ~= "number" then
      error("bad argument #" .. i .. " to 'write' (string expected, got " .. t .. ")", 2)
    end
    parts[i] = tostring(v)
  end
  local text = concat(parts)
  if s.kind == "stdout" then host.write(1, text)
  elseif s.kind == "stderr" then host.write(2, text)
  elseif s.kind == "memory" then
    s.data = s.data:sub(1, s.pos) .. text .. s.data:sub(s.pos + #text + 1)
    s.pos = s.pos + #text
  else
    return nil, "Bad file descriptor", 9
  end
  return f
end

local function read_one(s, fmt)
  if s.kind ~= "memory" then return nil end
  local data, pos = s.data, s.pos
  if type(fmt) == "number" then
    if pos >= #data then return fmt == 0 and nil or nil end
    local chunk = data:sub(pos + 1, pos + fmt)
    s.pos = pos + #chunk
    return chunk
  end
  fmt = tostring(fmt):gsub("^%*", "")
  local c = fmt:sub(1, 1)
  if c == "a" then
    s.pos = #data
    return data:sub(pos + 1)
  elseif c == "l" or c == "L" then
    if pos >= #data then return nil end
    local nl = data:find("\n", pos + 1, true)
    local line
    if nl then
      line = data:sub(pos + 1, c == "L" and nl or nl - 1)
      s.pos = nl
    else
      line = data:sub(pos + 1)
      s.pos = #data
    end
    return line
  elseif c == "n" then
    local start, stop, text = data:find("^%s*([%+%-]?[%w%.]+)", pos + 1)
    if not start then return nil end
    s.pos = stop
    return tonumber(text)
  end
  error("bad argument #1 to 'read' (invalid format)", 3)
end

function methods.read(f, ...)
  local s = open_state(f, "read")
  local n = select("#", ...)
  if n == 0 then return read_one(s, "l") end
  local out = {}
  for i = 1, n do
    out[i] = read_one(s, (select(i, ...)))
    if out[i] == nil then return table.unpack(out, 1, i) end
  end
  return table.unpack(out, 1, n)
end

function methods.lines(f, ...)
  local s = open_state(f, "lines")
  local formats = table.pack(...)
  return function()
    if formats.n == 0 then return read_one(s, "l") end
    return read_one(s, formats[1])
  end
end

function methods.seek(f, whence, offset)
  local s = open_state(f, "seek")
  if s.kind ~= "memory" then return nil, "Illegal seek", 29 end
  whence, offset = whence or "cur", offset or 0
  local base = ({ set = 0, cur = s.pos, ["end"] = #s.data })[whence]
  if not base then error("bad argument #1 to 'seek' (invalid option '" .. tostring(whence) .. "')", 2) end
  local target = base + offset
  if target < 0 then return nil, "Invalid argument", 22 end
  s.pos = target
  return target
end

function methods.flush(f) open_state(f, "flush"); return f end
function methods.setvbuf(f) open_state(f, "setvbuf"); return true end

function methods.close(f)
  local s = open_state(f, "close")
  if s.kind ~= "memory" then return nil, "cannot close standard file" end
  s.closed = true
  return true
end

local stdin, stdout, stderr = new_file("stdin"), new_file("stdout"), new_file("stderr")

local function no_files(name)
  return function(target)
    return nil, tostring(target) .. ": " .. name .. " has no file access in responder test", 13
  end
end

local io = ctx.io
local fields = {
  stdin = stdin, stdout = stdout, stderr = stderr,
  write = function(...) return methods.write(stdout, ...) end,
  read = function(...) return methods.read(stdin, ...) end,
  lines = function(target, ...)
    if target == nil then return methods.lines(stdin, ...) end
    error(tostring(target) .. ": io.lines has no file access in responder test", 2)
  end,
  tmpfile = function() return new_file("memory") end,
  type = function(v)
    local s = state[v]
    if s == nil then return nil end
    return s.closed and "closed file" or "file"
  end,
  close = function(f) return methods.close(f or stdout) end,
  open = no_files("io.open"),
  popen = no_files("io.popen"),
  input = function(f) if f == nil then return stdin end; error("io.input has no file access in responder test", 2) end,
  output = function(f) if f == nil then return stdout end; error("io.output has no file access in responder test", 2) end,
}
setmetatable(io, nil)
for k, v in pairs(fields) do io[k] = v end
