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
        let chunkname: String
        /// The length of the source it was compiled from (a changed source is compiled again).
        let sourceCount: Int
        let code: [UInt8]
    }

    /// A list, not a dictionary: there are a dozen chunks at most, and a `[String: Entry]` costs
    /// every process about 0.23 M instructions at its first insertion (the runtime instantiates
    /// the dictionary's type and looks up `String: Hashable` among all conformance records): a
    /// tenth of an empty `responder run`.
    private static let entries = Mutex<[Entry]>([])

    /// The bytecode kept for `chunkname` when it was compiled from a source of this length.
    public static func code(for chunkname: String, sourceCount: Int) -> [UInt8]? {
        entries.withLock { entries in
            for e in entries where e.chunkname == chunkname {
                return e.sourceCount == sourceCount ? e.code : nil
            }
            return nil
        }
    }

    /// Keeps `code` for `chunkname`, compiled from a source of this length.
    public static func keep(_ code: [UInt8], for chunkname: String, sourceCount: Int) {
        entries.withLock { entries in
            let entry = Entry(chunkname: chunkname, sourceCount: sourceCount, code: code)
            if let i = entries.firstIndex(where: { $0.chunkname == chunkname }) {
                entries[i] = entry
            } else {
                entries.append(entry)
            }
        }
    }

    /// The bytecode (with debug information) of the Lua function on top of the stack, or nil.
    public static func dump(_ L: OpaquePointer) -> [UInt8]? {
        var size = 0
        guard let data = luashim_dump(L, &size) else { return nil }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }
}
