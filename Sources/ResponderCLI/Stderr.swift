import ResponderLua

/// Unbuffered writes to standard error.
enum Stderr {
    static func write(_ text: String) { Console.error(text) }
}
