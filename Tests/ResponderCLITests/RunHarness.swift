import ResponderLua
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Helpers for the `responder run` end-to-end tests (RunCommandTests.swift).

enum RunHarness {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The `responder` binary next to the test bundle (or `$RESPONDER_BIN`).
    static func binary() throws -> String {
        if let env = getenv("RESPONDER_BIN") { return String(cString: env) }
        var dir = TestProcess.executablePath()
        while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
            dir = String(dir[..<slash])
            let candidate = dir + "/responder"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw Failure(description: "no 'responder' binary found above the test executable; build it first")
    }

    /// A fresh empty folder.
    static func folder() throws -> String {
        var template = Array("/tmp/responder-run-XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        return String(cString: p)
    }

    /// A fresh folder holding `files` (relative path → text).
    static func folder(_ files: [String: String]) throws -> String {
        let root = try folder()
        for (path, text) in files { try write(Array(text.utf8), to: root + "/" + path) }
        return root
    }

    /// Writes raw bytes to `path` (creating parent folders).
    static func write(_ bytes: [UInt8], to path: String) throws {
        var dir = ""
        for part in path.split(separator: "/").dropLast() {
            dir += "/" + part
            mkdir(dir, 0o755)
        }
        guard let f = fopen(path, "wb") else { throw Failure(description: "cannot write \(path)") }
        defer { fclose(f) }
        let n = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        guard n == bytes.count else { throw Failure(description: "short write to \(path)") }
    }

    /// Deletes a folder made by `folder` (big generated scripts should not pile up in /tmp).
    static func remove(_ dir: String) {
        guard dir.hasPrefix("/tmp/responder-run-") else { return }
        _ = TestProcess.run("/bin/rm", ["-rf", dir])
    }

    static func quote(_ s: String) -> String {
        "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Seconds a single run may take before it counts as a hang (then killed: signal 9).
    static let timeLimit = 120

    /// Runs `responder run ARGS` inside `dir` (so relative script paths resolve there), under
    /// `timeout` so that a hang fails the test instead of blocking the suite.
    static func run(_ args: [String], in dir: String = "/tmp", timeLimit: Int = timeLimit) throws -> TestProcess.Output {
        let bin = try binary()
        let guardCommand = access("/usr/bin/timeout", X_OK) == 0 ? "/usr/bin/timeout -s KILL \(timeLimit) " : ""
        let command = "cd \(quote(dir)) && exec \(guardCommand)\(quote(bin)) run \(args.map(quote).joined(separator: " "))"
        let environment = TestProcess.environment().filter { !$0.hasPrefix("NO_COLOR=") } + ["NO_COLOR=1"]
        guard let out = TestProcess.run("/bin/sh", ["-c", command], environment: environment) else {
            throw Failure(description: "cannot spawn /bin/sh")
        }
        return out
    }

    /// Writes `script` as `name` in a fresh folder and runs it by its relative name from there.
    static func runScript(_ script: String, name: String = "script.lua", _ args: [String] = [],
                          files: [String: String] = [:]) throws -> (out: TestProcess.Output, dir: String) {
        let dir = try folder(files.merging([name: script]) { _, new in new })
        return (try run([name] + args, in: dir), dir)
    }

    /// The lines of `s` (without the trailing empty one).
    static func lines(_ s: String) -> [String] {
        s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// A one-line description of an output, for expectation messages.
    static func show(_ out: TestProcess.Output) -> String {
        "\(out.termination); stdout: \(out.stdout.debugDescription); stderr: \(out.stderr.debugDescription)"
    }

    /// Exit status `code`, not a signal and not the `timeout` kill.
    static func exited(_ out: TestProcess.Output, _ code: Int32) -> Bool {
        out.termination == .exited(code)
    }

    /// A usage error: exit 2, nothing on stdout, a short message with a hint (no traceback).
    static func isUsageError(_ out: TestProcess.Output) -> Bool {
        let errLines = lines(out.stderr)
        return exited(out, 2) && out.stdout.isEmpty && !errLines.isEmpty && errLines.count <= 4
            && errLines[0].lowercased().hasPrefix("error: ") && !out.stderr.contains("stack traceback")
    }

    static func contains(_ s: String, _ part: String) -> Bool { s.firstRange(of: part) != nil }

    /// Whether this process can read files regardless of their permission bits (root, CAP_DAC_OVERRIDE).
    static var bypassesPermissions: Bool {
        let dir = (try? folder(["probe.txt": "x"])) ?? "/tmp"
        let probe = dir + "/probe.txt"
        chmod(probe, 0)
        defer { chmod(probe, 0o644); unlink(probe); rmdir(dir) }
        return access(probe, R_OK) == 0
    }
}
