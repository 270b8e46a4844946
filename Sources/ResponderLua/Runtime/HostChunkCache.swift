import CLua
import CLuaShim
import Synchronization

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

    private final class Buffer { var bytes: [UInt8] = [] }

    /// The bytecode (with debug information) of the Lua function on top of the stack, or nil.
    public static func dump(_ L: OpaquePointer) -> [UInt8]? {
        let buffer = Buffer()
        let writer: lua_Writer = { _, p, size, ud in
            guard let p, let ud else { return 1 }
            Unmanaged<Buffer>.fromOpaque(ud).takeUnretainedValue().bytes
                .append(contentsOf: UnsafeRawBufferPointer(start: p, count: size))
            return 0
        }
        // Lifetime proof: `lua_dump` calls the writer only during this call, while `buffer` is a
        // live local; Lua never keeps `ud`. Test: every spec file of scripts/tests (a worker
        // dumps the kit prelude once and undumps it for each later file).
        guard lua_dump(L, writer, Unmanaged.passUnretained(buffer).toOpaque(), 0) == 0,
            !buffer.bytes.isEmpty
        else { return nil }
        return buffer.bytes
    }
}
