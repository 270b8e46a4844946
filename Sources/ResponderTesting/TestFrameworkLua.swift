import ResponderLua

/// Small Lua chunks the Swift half of `responder test` runs itself (the framework's own chunks
/// are in ``TestFrameworkChunks``).
enum TestFrameworkLua {
    /// Where every chunk name of the framework starts: each chunk is named after its file, so
    /// errors and tracebacks point at the real file and line (tracebacks are cut at its frames).
    static let chunkPrefix = "=Sources/ResponderTesting/Lua/"
}
