import CLuaShim

/// Writing to the standard streams without Foundation and without touching C globals from Swift.
public enum Console {
    /// Writes to standard error (after flushing standard output, so the two interleave sensibly).
    public static func error(_ text: String) {
        var t = text
        t.withUTF8 { $0.withMemoryRebound(to: CChar.self) { luashim_write_stderr($0.baseAddress, $0.count) } }
    }

    /// Writes to standard output (buffered).
    public static func out(_ text: String) {
        var t = text
        t.withUTF8 { $0.withMemoryRebound(to: CChar.self) { luashim_write_stdout($0.baseAddress, $0.count) } }
    }

    /// Flushes standard output.
    public static func flush() { luashim_flush_stdout() }

    /// True when the file descriptor is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { luashim_isatty(fd) != 0 }
}
