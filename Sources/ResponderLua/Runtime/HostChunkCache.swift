import CLua
import CLuaShim

/// Bytecode of the host's own Lua chunks, dumped once per process (see
/// ``LuaRuntime/loadHostChunk(_:chunkname:)``). The program runs Lua on one thread only.
enum HostChunkCache {
    /// Chunk name → the length of the source it was compiled from, and its bytecode.
    nonisolated(unsafe) static var bytecode: [String: (sourceCount: Int, code: [UInt8])] = [:]

    private final class Buffer { var bytes: [UInt8] = [] }

    /// The bytecode (with debug information) of the Lua function on top of the stack, or nil.
    static func dump(_ L: OpaquePointer) -> [UInt8]? {
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
