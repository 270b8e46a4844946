/// Long text cut for display.
///
/// Traces, value descriptions, warnings and pictures print what a script made. The script was
/// charged for one copy of a name or a string; printed on every line of a trace or in every
/// field of a value, one long text would multiply into gigabytes the memory limit never saw
/// (found by an adversarial probe: a 1 MiB type name on 300 trace lines, one 10 MiB string in 30
/// fields). Cut text keeps its first characters and says how many were left out.
public enum TextClip {
    /// The longest node or responder column of a trace line, and label of a picture.
    public static let column = 200
    /// The longest rendering of one field of a value.
    public static let field = 1000
    /// The longest description of a value's fields, all together.
    public static let fields = 64 * 1024

    /// `text`, or its first `limit` characters and a count of the rest.
    public static func clip(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit, text.count > limit else { return text }
        return text.prefix(limit) + "… (\(text.count - limit) more characters)"
    }
}
