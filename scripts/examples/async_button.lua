-- async_button.lua: an AsyncButton runs its action as a task on a virtual clock.
-- The screen shows a spinner while a task runs (onAsyncTaskChanged), the task sleeps on the
-- virtual clock, a failed upload is reported from the button as an error that an ancestor
-- turns into an alert, a press while uploading starts nothing (the button is loading and so
-- disabled, as ButtonKit's AsyncButton), and a third upload is cancelled while it sleeps.
local Uploaded = Event "Uploaded"

local attempts = 0
local upload
upload = AsyncButton "Upload" { id = "upload", action = function(task)
  attempts = attempts + 1
  print(("[t=%g] %s starts"):format(now(), tostring(task)))
  sleep(2) -- connecting
  if attempts == 1 then error("connection reset") end
  sleep(3) -- sending
  upload:trigger(Uploaded { bytes = 1024, at = now() })
end }

local screen = View "Screen" { View "Toolbar" { upload }, spinner = false }
local app = View "App" { screen }

screen:onAsyncTaskChanged(function(task) screen.props.spinner = task ~= nil end)
screen:observe("spinner", function(on) print(("[t=%g] spinner %s"):format(now(), on and "on" or "off")) end)
screen:handleEvent(Uploaded, function(e) print(("[t=%g] uploaded %d bytes"):format(now(), e.bytes)) end)
app:handleError(LuaError, function(e) print(("[t=%g] upload failed: %s"):format(now(), e.message)) end)
mount(app)

-- 1. the first attempt fails after 2 seconds
tap(upload)
advance(2)

-- 2. the second attempt succeeds at t=7; pressing again while it runs starts nothing
tap(upload)
print(("[t=%g] loading: %s, second press: %s"):format(now(), upload.isLoading, tap(upload)))
advance(10)
print("now:", now())

-- 3. a third attempt is cancelled while it sleeps
local running
screen:onAsyncTaskStarted(function(task) running = task end)
tap(upload)
advance(1)
running:cancel()
print(running, running.isCancelled)
