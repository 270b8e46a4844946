/// The exit statuses every command that runs scripts shares (SPEC §3), for `--help`.
enum ExitStatusHelp {
    /// Appended to each command's help.
    static let text = """
        Exit status: 0 success; 1 a script error, a strict violation or a failed test; \
        2 a usage error (unknown flag, missing file); 3 a sandbox limit \
        (--max-instructions, --max-memory, --timeout).
        """

    /// `discussion` followed by the exit statuses.
    static func discussion(_ text: String) -> String { text + "\n\n" + Self.text }
}
