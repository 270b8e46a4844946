/// The characters a graph draws with: the text form is plain ASCII (SPEC §3: "`text` an ASCII
/// tree", so it survives any terminal, log or diff tool); Graphviz labels use Unicode arrows.
struct Glyphs: Sendable {
    /// Marks what a node or line did on the last dispatch (`◀ step 1: handled`).
    let mark: String
    /// Joins a path and points at a result value.
    let arrow: String
    /// Stands for text left out.
    let more: String
    /// Before a child that has later siblings.
    let branch: String
    /// Before a parent's last child.
    let lastBranch: String
    /// Under a node whose siblings or children follow.
    let vertical: String

    /// Graphviz labels.
    static let unicode = Glyphs(mark: "◀", arrow: "→", more: "…", branch: "├── ", lastBranch: "└── ", vertical: "│   ")
    /// `responder graph --format text`.
    static let ascii = Glyphs(
        mark: "<-", arrow: "->", more: "...", branch: "|-- ", lastBranch: "`-- ", vertical: "|   ")

    /// `text` with the engine's and the kit's arrows (` → `, in notes such as
    /// `touchUpInside → save`) drawn with this set's arrow.
    func arrows(in text: String) -> String {
        arrow == "→" || !text.contains("→") ? text : text.replacing(" → ", with: " \(arrow) ")
    }
}
