/// Tracebacks as a script's author reads them: the host's own Lua chunks (the kit, the test
/// framework, explore's helpers, named `=Sources/…`) are built-in functions to the script, as the
/// engine's C functions are, so their frames are not listed.
///
/// A run of host frames (with the C functions they called and the tail calls between them) is
/// replaced by one line for the built-in function the script called, `[responder]: in function
/// 'advance'`, when its name is known, and left out otherwise. A traceback with no frame of the
/// script's own is kept whole (nothing of a host failure is lost).
enum TracebackText {
    /// `traceback` (luaL_traceback's text) without the host's own frames.
    static func hidingHostFrames(_ traceback: String) -> String {
        guard traceback.contains(hostFrame) else { return traceback }
        let lines = traceback.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "stack traceback:") else { return traceback }
        let frames = Array(lines[(start + 1)...])
        var hidden = frames.map(isHostFrame)
        // a C function or a tail call above host frames (called by one): hidden with them
        var callerIsHost = false
        for i in frames.indices.reversed() {
            if hidden[i] {
                callerIsHost = true
            } else if callerIsHost && (isCFrame(frames[i]) || frames[i] == tailCalls) {
                hidden[i] = true
            } else {
                callerIsHost = false
            }
        }
        // the tail calls below a hidden frame happened inside the host too
        for i in frames.indices where frames[i] == tailCalls && i > 0 && hidden[i - 1] { hidden[i] = true }
        guard frames.indices.contains(where: { !hidden[$0] && !isCFrame(frames[$0]) }) else { return traceback }
        var out = Array(lines[...start])
        var i = 0
        while i < frames.count {
            guard hidden[i] else {
                out.append(frames[i])
                i += 1
                continue
            }
            var end = i
            while end + 1 < frames.count && hidden[end + 1] { end += 1 }
            // the outermost host frame of the run is the function the script called
            if let outer = frames[i...end].last(where: isHostFrame), let name = publicName(outer) {
                out.append("\t[responder]: in \(name)")
            }
            i = end + 1
        }
        return out.joined(separator: "\n")
    }

    private static let tailCalls = "\t(...tail calls...)"

    /// How a frame of a host chunk begins (``LuaRuntime/hostChunkPrefix``).
    private static let hostFrame = "\t" + LuaRuntime.hostChunkPrefix
    private static func isHostFrame(_ line: String) -> Bool { line.hasPrefix(hostFrame) }
    private static func isCFrame(_ line: String) -> Bool { line.hasPrefix("\t[C]: ") }

    /// `function 'advance'` or `method 'onChange'` from a frame line that names the function as
    /// the script does (a global or a method); nil for a field, a local, an upvalue or an
    /// anonymous function (the kit's own helpers).
    private static func publicName(_ line: String) -> String? {
        guard let range = line.firstRange(of: ": in ") else { return nil }
        let what = line[range.upperBound...]
        // (Lua finds the module's functions under `responder.`; scripts call them as globals)
        if what.hasPrefix("function 'responder.") { return "function '" + what.dropFirst(20) }
        for kind in ["function '", "method '"] where what.hasPrefix(kind) {
            return String(what)
        }
        return nil
    }
}
