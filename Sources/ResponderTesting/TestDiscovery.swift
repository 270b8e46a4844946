import ResponderLua
#if canImport(Glibc)
import Glibc
#endif

/// Finds the files `responder test` runs.
///
/// - A folder is searched recursively for `*_spec.lua`; folders whose name starts with `.` or `_`
///   (`.git`, `.build`, `__snapshots__`, `_busted_compat`, …) are skipped while recursing, but a
///   folder named explicitly is always searched. Symbolic links to folders are not followed.
/// - A file named explicitly is a spec when it ends in `_spec.lua`, otherwise a plain script.
/// - The result is sorted by path and de-duplicated, so shards are deterministic.
package enum TestDiscovery {
    package enum Failure: Error {
        case missing(String)
    }

    package static func discover(_ paths: [String]) throws(Failure) -> [TestFile] {
        var found: [String: Bool] = [:]   // path -> plain
        for raw in paths {
            let path = normalize(raw)
            if FileText.isDirectory(path) {
                walk(path, into: &found)
            } else if FileText.isFile(path) {
                found[path] = !path.hasSuffix("_spec.lua")
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

    private static func walk(_ dir: String, into found: inout [String: Bool]) {
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
                if name.hasPrefix(".") || name.hasPrefix("_") { continue }
                walk(path, into: &found)
            } else if name.hasSuffix("_spec.lua") && (kind == S_IFREG || (kind == S_IFLNK && FileText.isFile(path))) {
                found[path] = false
            }
        }
    }

    /// `--shard K/N`: file i (0-based, in sorted order) belongs to shard (i mod N) + 1.
    package static func shard(_ files: [TestFile], k: Int, n: Int) -> [TestFile] {
        files.enumerated().filter { $0.offset % n == k - 1 }.map(\.element)
    }
}
