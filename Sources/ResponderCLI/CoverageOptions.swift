import ArgumentParser
import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// `--coverage [--coverage-output FILE] [--coverage-format lcov|json]` (SPEC §3.6), shared by
/// `run` and `test`.
struct CoverageOptions: ParsableArguments {
    @Flag(help: "Record lines of your Lua files, responders, declarations and controls; write a report.")
    var coverage = false

    @Option(
        name: .customLong("coverage-output"),
        help: "Where to write the coverage report (default coverage/lcov.info, or coverage/coverage.json).")
    var coverageOutput: String?

    @Option(name: .customLong("coverage-format"), help: "Coverage report format: lcov or json.")
    var coverageFormat: String = "lcov"

    /// `also`: coverage was asked for another way (`test -c`, busted's flag).
    func check(also: Bool = false) throws {
        if !["lcov", "json"].contains(coverageFormat) {
            throw ValidationError("--coverage-format must be lcov or json (got '\(coverageFormat)')")
        }
        if !coverage && !also && (coverageOutput != nil || coverageFormat != "lcov") {
            throw ValidationError("--coverage-output and --coverage-format need --coverage")
        }
    }

    var mode: CoverageMode { settings.mode }

    /// The values given, without ArgumentParser's wrappers.
    var settings: CoverageSettings {
        CoverageSettings(coverage: coverage, coverageOutput: coverageOutput, coverageFormat: coverageFormat)
    }

    /// See ``CoverageSettings/write(_:)``.
    func write(_ data: CoverageData) -> String? { settings.write(data) }

    /// Creates the folders above `path` (as `mkdir -p`).
    static func makeParent(of path: String) -> Bool {
        let dir = FileText.directory(of: path)
        if dir == "." || FileText.isDirectory(dir) { return true }
        var built = dir.hasPrefix("/") ? "/" : ""
        for part in dir.split(separator: "/") {
            built += (built.isEmpty || built.hasSuffix("/") ? "" : "/") + part
            if !FileText.isDirectory(built) && mkdir(built, 0o755) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}

/// The values of ``CoverageOptions``, at the same defaults.
struct CoverageSettings: Equatable {
    var coverage = false
    var coverageOutput: String?
    var coverageFormat = "lcov"

    var mode: CoverageMode { coverage ? .linesAndResponders : .off }

    /// The report file.
    var outputPath: String {
        coverageOutput ?? (coverageFormat == "json" ? "coverage/coverage.json" : "coverage/lcov.info")
    }

    /// Writes the report and returns the summary text (with the report's path), or prints an
    /// error and returns nil when the file cannot be written.
    ///
    /// The report is written as snapshots are (``FileText/writeGuarded(_:to:header:guardedFolder:)``):
    /// never through a symbolic link, in its name or its folder's, and never over a file that is
    /// not an earlier report of the same format. A repository could ship `coverage/lcov.info`
    /// (or `coverage/`) as a link to any file, and `--coverage` replaced that file (found by an
    /// adversary probe).
    func write(_ data: CoverageData) -> String? {
        let path = outputPath
        let json = coverageFormat == "json"
        let text = json ? data.json() : data.lcov()
        guard CoverageOptions.makeParent(of: path) else {
            Stderr.write("error: cannot write the coverage report to '\(path)': \(String(cString: strerror(errno)))\n")
            return nil
        }
        if let why = FileText.writeGuarded(
            Array(text.utf8), to: path, header: json ? "{\n  \"files\"" : "TN:",
            guardedFolder: FileText.directory(of: path))
        {
            Stderr.write("error: cannot write the coverage report to '\(path)': \(why)\n")
            return nil
        }
        return "\nCoverage (\(path)):\n" + data.summary()
    }
}
