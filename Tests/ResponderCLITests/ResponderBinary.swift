import ResponderLua
import ResponderTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// What the CLI end-to-end tests share: finding the built `responder` binary, running it through
// a shell, and temporary folders holding the files it works on.

/// A harness step that could not be carried out (not a failed expectation).
struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
}

/// The built `responder` binary.
enum ResponderBinary {
    /// The `responder` binary in the nearest folder above the test executable (or `$RESPONDER_BIN`).
    static func path() throws -> String {
        if let env = getenv("RESPONDER_BIN") { return String(cString: env) }
        var dir = TestProcess.executablePath()
        while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
            dir = String(dir[..<slash])
            let candidate = dir + "/responder"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw HarnessFailure(
            description:
                "no 'responder' binary found above the test executable; build it first (swift build) or set RESPONDER_BIN"
        )
    }

    /// A fresh empty folder whose path starts with `prefix` (e.g. `/tmp/responder-run-`).
    static func temporaryFolder(_ prefix: String) throws -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        guard let p = mkdtemp(&template) else { throw HarnessFailure(description: "mkdtemp failed") }
        return String(cString: p)
    }

    /// Creates the folders above the absolute `path` that do not exist yet.
    static func makeParentFolders(of path: String) {
        var dir = ""
        for part in path.split(separator: "/").dropLast() {
            dir += "/" + part
            mkdir(dir, 0o755)
        }
    }
}

/// A harness for one `responder` subcommand: helpers every such harness gets, given where its
/// temporary folders go.
protocol ResponderHarness {
    /// The start of the harness's temporary folder paths, e.g. `/tmp/responder-run-`.
    static var folderPrefix: String { get }
}

extension ResponderHarness {
    /// The `responder` binary under test.
    static func binary() throws -> String { try ResponderBinary.path() }

    /// A fresh empty folder.
    static func folder() throws -> String { try ResponderBinary.temporaryFolder(folderPrefix) }

    /// A fresh folder holding `files` (relative path → text; parent folders are created).
    static func folder(_ files: [String: String]) throws -> String {
        let root = try folder()
        for (path, text) in files {
            ResponderBinary.makeParentFolders(of: root + "/" + path)
            guard FileText.write(text, to: root + "/" + path) else {
                throw HarnessFailure(description: "cannot write \(path)")
            }
        }
        return root
    }

    /// The text of the file at `path`, nil when it cannot be read.
    static func read(_ path: String) -> String? {
        guard case .success(let b) = FileText.read(path) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }

    /// `s` quoted for `/bin/sh`.
    static func quote(_ s: String) -> String {
        "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    static func contains(_ s: String, _ part: String) -> Bool { s.firstRange(of: part) != nil }

    /// Runs `cd DIR && exec PREFIX responder ARGS` through `/bin/sh`, without colour. `prefix` is
    /// shell text put before the binary (e.g. `env A=1` or a `timeout` guard).
    /// `setup` is shell text run before the binary is started (e.g. `ulimit -d 98304; `).
    static func shell(_ args: [String], in dir: String, prefix: String, setup: String = "") throws -> TestProcess.Output
    {
        let command =
            "cd \(quote(dir)) && \(setup)exec \(prefix)\(quote(try binary())) \(args.map(quote).joined(separator: " "))"
        let environment = TestProcess.environment().filter { !$0.hasPrefix("NO_COLOR=") } + ["NO_COLOR=1"]
        guard let out = TestProcess.run("/bin/sh", ["-c", command], environment: environment) else {
            throw HarnessFailure(description: "cannot spawn /bin/sh")
        }
        return out
    }
}
