import ArgumentParser

/// `--safety LEVEL`, the default safety level at the root, shared by the commands that run
/// scenarios (`run`, `graph`, `repl`, `test`).
struct SafetyOption: ParsableArguments {
    /// The levels `--safety` accepts.
    static let levels = ["relaxed", "strict", "disabled"]

    @Option(help: "Default safety level at the root: relaxed, strict or disabled.")
    var safety: String = "relaxed"

    /// Rejects a level not in `levels`. Commands call it from their own `validate()` (this type
    /// has no `validate()`, which ArgumentParser would run earlier, while decoding), so the
    /// message keeps its place among each command's checks.
    func check() throws {
        if !Self.levels.contains(safety) {
            throw ValidationError("--safety must be relaxed, strict or disabled (got '\(safety)')")
        }
    }
}
