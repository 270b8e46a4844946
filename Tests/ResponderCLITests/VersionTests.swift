import ResponderTesting
import Testing

@Suite("responder --version")
struct VersionTests {
    @Test func versionNamesTheToolAndTheLuaRelease() throws {
        guard let out = TestProcess.run(try GraphHarness.binary(), ["--version"]) else {
            Issue.record("cannot spawn responder")
            return
        }
        #expect(out.status == 0)
        #expect(out.stdout.hasPrefix("responder 0.1.0 (Lua 5.4."), "\(out.stdout)")
        #expect(out.stdout.hasSuffix(")\n"), "\(out.stdout)")
    }
}
