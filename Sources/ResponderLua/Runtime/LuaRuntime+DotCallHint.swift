import CLua
import CLuaShim

extension LuaRuntime {
    /// The hint after `calling 'NAME' on bad self (…)` when the method was called with a dot
    /// (`root.handleEvent(E, f)`): `; use root:handleEvent(...) (a colon, not a dot)`. Empty when
    /// the call used a colon or is not a script's call.
    ///
    /// The receiver's name comes from the calling line of the script file when it can be read
    /// there (`root` in `root.handleEvent(`); otherwise `receiver` (`node`) stands for it. Runs
    /// only on this error path.
    public func dotCallHint(_ name: String, receiver: String) -> String {
        var ar = lua_Debug()
        // level 0 is the C function raising; its name and how it was called come from level 1's call
        guard lua_getstack(L, 0, &ar) != 0, lua_getinfo(L, "n", &ar) != 0 else { return "" }
        if let how = ar.namewhat, String(cString: how) == "method" { return "" }
        var caller = lua_Debug()
        var variable = receiver
        if lua_getstack(L, 1, &caller) != 0, lua_getinfo(L, "Sl", &caller) != 0, caller.currentline > 0,
            let source = caller.source.map({ String(cString: $0) }), source.hasPrefix("@"),
            let line = Self.sourceLine(String(source.dropFirst()), Int(caller.currentline)),
            let found = Self.dotReceiver(in: line, method: name)
        {
            variable = found
        }
        return "; use \(variable):\(name)(...) (a colon, not a dot)"
    }

    /// Line `number` of the file at `path` (at most the first 4 MiB are read), or nil.
    static func sourceLine(_ path: String, _ number: Int) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var line = 1
        var bytes: [UInt8] = []
        var read = 0
        while true {
            let c = getc(file)
            if c == EOF { break }
            read += 1
            if read > 4 << 20 { return nil }
            if c == 10 {
                if line == number { break }
                line += 1
                continue
            }
            if line == number {
                bytes.append(UInt8(c))
                if bytes.count > 4096 { break }
            }
        }
        return line == number ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// `root` in a line containing `root.handleEvent(` (or `self.root.handleEvent(`: `self.root`).
    static func dotReceiver(in line: String, method: String) -> String? {
        let chars = Array(line)
        let needle = Array("." + method)
        guard chars.count >= needle.count else { return nil }
        var at: Int?
        for start in 0...(chars.count - needle.count) where Array(chars[start..<start + needle.count]) == needle {
            let end = start + needle.count
            if end < chars.count, chars[end].isLetter || chars[end].isNumber || chars[end] == "_" { continue }
            at = start
            break
        }
        guard let at else { return nil }
        let isNamePart: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
        var begin = at
        while begin > 0, isNamePart(chars[begin - 1]) { begin -= 1 }
        let name = chars[begin..<at].drop(while: { $0 == "." })
        guard let first = name.first, first.isLetter || first == "_" else { return nil }
        return String(name)
    }
}
