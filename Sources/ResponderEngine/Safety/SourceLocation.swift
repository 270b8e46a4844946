/// A place in a script: the file and line that started a dispatch or declared something.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The script's path or chunk name.
    public var file: String
    /// The 1-based line number.
    public var line: Int

    /// Creates a location.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `FILE:LINE`.
    public var description: String { "\(file):\(line)" }
}
