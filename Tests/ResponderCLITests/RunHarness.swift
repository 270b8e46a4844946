import ResponderLua
import ResponderTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Helpers for the `responder run` end-to-end tests (RunCommandTests.swift).

enum RunHarness: ResponderHarness {
    static let folderPrefix = "/tmp/responder-run-"

    /// Writes raw bytes to `path` (creating parent folders).
    static func write(_ bytes: [UInt8], to path: String) throws {
        ResponderBinary.makeParentFolders(of: path)
        guard let f = fopen(path, "wb") else { throw HarnessFailure(description: "cannot write \(path)") }
        defer { fclose(f) }
        let n = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        guard n == bytes.count else { throw HarnessFailure(description: "short write to \(path)") }
    }

    /// Deletes a folder made by `folder` (big generated scripts should not pile up in /tmp).
    static func remove(_ dir: String) {
        guard dir.hasPrefix("/tmp/responder-run-") else { return }
        _ = TestProcess.run("/bin/rm", ["-rf", dir])
    }

    /// Seconds a single run may take before it counts as a hang (then killed: signal 9).
    static let timeLimit = 120

    /// Runs `responder run ARGS` inside `dir` (so relative script paths resolve there), under
    /// `timeout` so that a hang fails the test instead of blocking the suite.
    static func run(_ args: [String], in dir: String = "/tmp", timeLimit: Int = timeLimit) throws -> TestProcess.Output
    {
        let guardCommand = access("/usr/bin/timeout", X_OK) == 0 ? "/usr/bin/timeout -s KILL \(timeLimit) " : ""
        return try shell(["run"] + args, in: dir, prefix: guardCommand)
    }

    /// Writes `script` as `name` in a fresh folder and runs it by its relative name from there.
    static func runScript(
        _ script: String, name: String = "script.lua", _ args: [String] = [],
        files: [String: String] = [:]
    ) throws -> (out: TestProcess.Output, dir: String) {
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

    /// Whether this process can read files regardless of their permission bits (root, CAP_DAC_OVERRIDE).
    static var bypassesPermissions: Bool {
        let dir = (try? folder(["probe.txt": "x"])) ?? "/tmp"
        let probe = dir + "/probe.txt"
        chmod(probe, 0)
        defer {
            chmod(probe, 0o644)
            unlink(probe)
            rmdir(dir)
        }
        return access(probe, R_OK) == 0
    }
}
