import ResponderLua
import Testing

@testable import ResponderKit

/// The pending traces of `post` (``PostTrace``) are Swift memory no limit sees: a post that
/// unwound (a strict violation in a receiver) must not leave its entry behind for good.
@Suite("post traces")
struct PostTraceTests {
    @Test func postsThatUnwindLeaveNothingBehind() throws {
        // (found in review: 200,000 such posts held 282 MB where the script needs 15)
        let runtime = try Scenario.makeRuntime(ScenarioOptions(limits: .unlimited))
        try runtime.runString(
            """
            local root = View "Root"
            root:safetyLevel("strict")
            root:onReceive("x", function() root:trigger(Event "E" {}) end)
            mount(root)
            for _ = 1, 50 do assert(not pcall(post, "x")) end
            """, chunkname: "=unwound")
        let m = ModuleState.enter(runtime.L)
        #expect(m.kit.postTraces.count <= 1)
        try runtime.runString("post('nobody')", chunkname: "=after")
        #expect(m.kit.postTraces.isEmpty)
        #expect(m.world.lastTrace?.description == "action post(nobody) from Root")
    }
}
