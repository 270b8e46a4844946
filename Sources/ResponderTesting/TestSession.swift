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
    let emit: (TestRecord) -> Void
    var currentName: String?
    var currentLocation: String?
    /// 1-based positions in the world's warnings that an `assert.warns` of the running test expected.
    var silenced = Set<Int>()

    init(file: String, emit: @escaping (TestRecord) -> Void) {
        self.file = file
        self.emit = emit
    }

    static func of(_ L: OpaquePointer?) -> TestSession? {
        LuaRuntime.of(L).extensions[ObjectIdentifier(TestSession.self)] as? TestSession
    }
}
