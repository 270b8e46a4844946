import Testing

@testable import ResponderLua

/// Tracebacks without the host's own Lua frames (found by an acceptance probe: a script's
/// traceback listed `Sources/ResponderKit/Lua/async.lua` lines the script cannot read).
@Suite("Traceback text")
struct TracebackTextTests {
    @Test func hostFramesBecomeOneLineNamedAsTheScriptCalledIt() {
        let traceback = """
            stack traceback:
            \t[C]: in function 'error'
            \tSources/ResponderKit/Lua/async.lua:118: in upvalue 'reportTaskError'
            \tSources/ResponderKit/Lua/async.lua:198: in upvalue 'step'
            \tSources/ResponderKit/Lua/async.lua:294: in function 'responder.advance'
            \tf.lua:2: in main chunk
            """
        #expect(
            TracebackText.hidingHostFrames(traceback) == """
                stack traceback:
                \t[responder]: in function 'advance'
                \tf.lua:2: in main chunk
                """)
    }

    @Test func anonymousHostFramesAndTheirTailCallsAreLeftOut() {
        let traceback = """
            stack traceback:
            \t[C]: in upvalue 'raise'
            \tSources/ResponderKit/Lua/environment.lua:25: in upvalue 'argerr'
            \tSources/ResponderKit/Lua/async.lua:342: in function <Sources/ResponderKit/Lua/async.lua:341>
            \t(...tail calls...)
            \tf.lua:1: in main chunk
            """
        #expect(TracebackText.hidingHostFrames(traceback) == "stack traceback:\n\tf.lua:1: in main chunk")
    }

    @Test func scriptFramesCalledByTheHostStayAndCFramesOfTheScriptToo() {
        let traceback = """
            message
            stack traceback:
            \t[C]: in function 'error'
            \tf.lua:3: in function <f.lua:2>
            \t[C]: in function 'coroutine.resume'
            \tSources/ResponderKit/Lua/async.lua:198: in upvalue 'step'
            \tSources/ResponderKit/Lua/async.lua:294: in method 'onChange'
            \tf.lua:9: in main chunk
            \t[C]: in ?
            """
        #expect(
            TracebackText.hidingHostFrames(traceback) == """
                message
                stack traceback:
                \t[C]: in function 'error'
                \tf.lua:3: in function <f.lua:2>
                \t[responder]: in method 'onChange'
                \tf.lua:9: in main chunk
                \t[C]: in ?
                """)
    }

    @Test func aTracebackOfHostFramesAloneIsKeptWhole() {
        let traceback = """
            stack traceback:
            \t[C]: in function 'error'
            \tSources/ResponderTesting/Lua/runner.lua:10: in function <Sources/ResponderTesting/Lua/runner.lua:5>
            \t[C]: in ?
            """
        #expect(TracebackText.hidingHostFrames(traceback) == traceback)
        #expect(TracebackText.hidingHostFrames("no frames") == "no frames")
    }
}
