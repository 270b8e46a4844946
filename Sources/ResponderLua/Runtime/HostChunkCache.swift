import CLua
import CLuaShim
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Bytecode of the host's own Lua chunks (never script input), dumped once per process: see
/// ``LuaRuntime/loadHostChunk(_:chunkname:)`` and the test framework's chunks. Shared by every
/// state of the process, whichever thread runs it (Swift Testing runs states on several).
public enum HostChunkCache {
    private struct Entry {
        /// The length of the source it was compiled from (a changed source is compiled again).
        let sourceCount: Int
        let code: [UInt8]
    }

    private static let entries = Mutex<[String: Entry]>([:])

    /// The bytecode kept for `chunkname` when it was compiled from a source of this length.
    public static func code(for chunkname: String, sourceCount: Int) -> [UInt8]? {
        entries.withLock { entries in
            entries[chunkname].flatMap { $0.sourceCount == sourceCount ? $0.code : nil }
        }
    }

    /// Keeps `code` for `chunkname`, compiled from a source of this length.
    public static func keep(_ code: [UInt8], for chunkname: String, sourceCount: Int) {
        entries.withLock { $0[chunkname] = Entry(sourceCount: sourceCount, code: code) }
    }

    /// The bytecode (with debug information) of the Lua function on top of the stack, or nil.
    public static func dump(_ L: OpaquePointer) -> [UInt8]? {
        var size = 0
        guard let data = luashim_dump(L, &size) else { return nil }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }
}
