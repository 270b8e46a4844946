import CLuaShim

/// The result lines of the file a worker runs (see ``TestProtocol``), sent to the parent together
/// with its `E` line in one write: the parent then wakes once per file, not once per record
/// (about 10 % of the wall time of 500 small spec files on two cores, most of it the system time
/// of the writes and wake-ups). The lines wait in C (`results.c`): the limits' timer thread sends
/// those waiting longer than 20 ms, so a long file's results still arrive as its tests end, and a
/// hard exit sends them before its own last line.
enum ResultLines {
    /// Adds a line (or lines) to send.
    static func add(_ bytes: [UInt8]) {
        let added = bytes.withUnsafeBytes { luashim_results_append($0.baseAddress, $0.count) != 0 }
        if !added {
            // no memory for the pending lines: what is pending first, then this line, directly
            _ = luashim_results_send(TestProtocol.resultFD)
            _ = TestProcess.writeAll(TestProtocol.resultFD, bytes)
        }
    }

    /// Sends what is pending with the file's `E` line; false when the parent is gone.
    static func end() -> Bool {
        add(Array("E\n".utf8))
        return luashim_results_send(TestProtocol.resultFD) != 0
    }
}
