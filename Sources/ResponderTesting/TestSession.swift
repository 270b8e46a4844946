import CLua
import CLuaShim
import ResponderEngine
import ResponderKit
import ResponderLua

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// State shared between `TestFramework.runFile` and the Swift functions the Lua half calls.
final class TestSession {
    let file: String
    private let send: (TestRecord) -> Void
    /// Which of `--repeat`'s runs is running: every record sent is stamped with it.
    var run = 1
    var currentName: String?
    var currentLocation: String?
    /// 1-based positions in the world's warnings that an `assert.warns` of the running test expected.
    var silenced = Set<Int>()

    init(file: String, emit: @escaping (TestRecord) -> Void) {
        self.file = file
        self.send = emit
    }

    /// Sends `record`, stamped with the run in progress.
    func emit(_ record: TestRecord) {
        var record = record
        record.run = run
        send(record)
    }

    static func of(_ L: OpaquePointer?) -> TestSession? {
        LuaRuntime.of(L).extensions[ObjectIdentifier(TestSession.self)] as? TestSession
    }
}
