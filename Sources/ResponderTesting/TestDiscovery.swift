import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the files `responder test` runs.
///
/// - A folder is searched recursively (unless busted's `--no-recursive`) for `*_spec.lua`; folders whose name starts with `.`
///   (`.git`, `.build`, …) are skipped while recursing, as busted skips them, but a
///   folder named explicitly is always searched. Symbolic links to folders are not followed.
/// - A file named explicitly is a spec when it ends in `_spec.lua`, otherwise a plain script.
/// - The result is sorted by path and de-duplicated, so shards are deterministic.
package enum TestDiscovery {
    package enum Failure: Error {
        case missing(String)
    }

    /// Which file names are specs: busted's `--pattern` (Lua patterns on the base name, any one
    /// matching, `.lua` files only) and `--exclude-pattern`; without patterns, `*_spec.lua`.
    package struct Selection {
        package var pattern: LuaPatternMatcher?
        package var exclude: LuaPatternMatcher?
        /// busted's `--[no-]recursive`: whether subfolders of a folder are searched too.
        package var recursive: Bool

        package init(pattern: LuaPatternMatcher? = nil, exclude: LuaPatternMatcher? = nil, recursive: Bool = true) {
            self.pattern = pattern
            self.exclude = exclude
            self.recursive = recursive
        }

        package func isSpec(_ name: String) -> Bool {
            if let exclude, exclude.matchesAny(name) { return false }
            if let pattern { return name.hasSuffix(".lua") && pattern.matchesAny(name) }
            return name.hasSuffix("_spec.lua")
        }
    }

    package static func discover(_ paths: [String], selection: Selection = Selection()) throws(Failure) -> [TestFile] {
        var found: [String: Bool] = [:]  // path -> plain
        for raw in paths {
            let path = normalize(raw)
            if FileText.isDirectory(path) {
                walk(path, selection, into: &found)
            } else if FileText.isFile(path) {
                let base = path.split(separator: "/").last.map(String.init) ?? path
                found[path] = !selection.isSpec(base)
            } else {
                throw .missing(raw)
            }
        }
        return found.keys.sorted().map { TestFile(path: $0, plain: found[$0]!) }
    }

    /// Drops trailing slashes and a leading `./`.
    static func normalize(_ p: String) -> String {
        var s = p
        while s.count > 1 && s.hasSuffix("/") { s.removeLast() }
        while s.hasPrefix("./") && s.count > 2 { s.removeFirst(2) }
        return s
    }

    private static func walk(_ dir: String, _ selection: Selection, into found: inout [String: Bool]) {
        guard let d = opendir(dir) else { return }
        defer { closedir(d) }
        var entries: [String] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: &e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            entries.append(name)
        }
        for name in entries.sorted() {
            let path = dir == "." ? name : (dir.hasSuffix("/") ? dir + name : dir + "/" + name)
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let kind = st.st_mode & S_IFMT
            if kind == S_IFDIR {
                // (hidden folders are skipped, as busted skips them)
                if name.hasPrefix(".") || !selection.recursive { continue }
                walk(path, selection, into: &found)
            } else if selection.isSpec(name) && (kind == S_IFREG || (kind == S_IFLNK && FileText.isFile(path))) {
                found[path] = false
            }
        }
    }

    /// `--shard K/N`: file i (0-based, in sorted order) belongs to shard (i mod N) + 1.
    package static func shard(_ files: [TestFile], k: Int, n: Int) -> [TestFile] {
        files.enumerated().filter { $0.offset % n == k - 1 }.map(\.element)
    }
}
