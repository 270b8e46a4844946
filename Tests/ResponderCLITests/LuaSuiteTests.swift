import ResponderTesting
import Testing

/// The project's Lua scenario suite (`scripts/tests`) and the examples, run by the built
/// `responder test` as `scripts/test` runs them, so that `swift test` alone also covers the
/// bridge and the kit through Lua.
@Suite("Lua scenario suite")
struct LuaSuiteTests {
    @Test func everySpecAndExamplePasses() throws {
        let root = GraphHarness.repository()
        let command =
            "cd \(GraphHarness.quote(root)) && exec \(GraphHarness.quote(try ResponderBinary.path())) "
            + "test scripts/tests scripts/examples/*.lua"
        let environment = TestProcess.environment().filter { !$0.hasPrefix("NO_COLOR=") } + ["NO_COLOR=1"]
        guard let out = TestProcess.run("/bin/sh", ["-c", command], environment: environment) else {
            throw HarnessFailure(description: "cannot spawn /bin/sh")
        }
        #expect(out.termination == .exited(0), "\(out.stdout.suffix(3000))\n\(out.stderr.suffix(3000))")
        #expect(out.stdout.contains(" 0 failed"))
    }
}
