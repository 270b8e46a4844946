import Testing

#if canImport(Glibc)
    import Glibc
#endif

// The README's examples, run as a new user would copy them: the outputs it shows must be what
// the tool prints (issue 10: the README's examples match verbatim).

enum ReadmeHarness: ResponderHarness {
    static let folderPrefix = "/tmp/responder-readme-"

    /// The README's text.
    static func readme(_ file: String = #filePath) throws -> String {
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let path = parts.joined(separator: "/") + "/README.md"
        guard let text = read(path) else { throw HarnessFailure(description: "cannot read \(path)") }
        return text
    }

    /// The body of the first fenced block opening with "```" + `info` whose body starts with `start`.
    static func block(_ readme: String, info: String = "", startingWith start: String) throws -> String {
        var open: String?  // the info string of the block being read
        var body: [Substring] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if let current = open {
                if line == "```" {
                    let text = body.joined(separator: "\n") + "\n"
                    if current == info && text.hasPrefix(start) { return text }
                    open = nil
                } else {
                    body.append(line)
                }
            } else if line.hasPrefix("```") {
                open = String(line.dropFirst(3))
                body = []
            }
        }
        throw HarnessFailure(description: "no README block starting with \(start.debugDescription)")
    }

    /// Times vary from run to run: `2 tests in 0.026 s` → `2 tests in T s`.
    static func withoutTimes(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let inRange = line.firstRange(of: " tests in "), line.hasSuffix(" s") else { return String(line) }
            return String(line[..<inRange.upperBound]) + "T s"
        }.joined(separator: "\n")
    }
}

@Suite("README examples")
struct ReadmeTests {
    typealias H = ReadmeHarness

    @Test func theFirstCommandPrintsWhatTheReadmeShows() throws {
        let readme = try H.readme()
        let shown = try H.block(readme, startingWith: "hello, world!")
        let script = try H.block(readme, info: "lua", startingWith: "local Greeted = Event \"Greeted\"")
        let dir = try H.folder(["hello.lua": script])
        let out = try H.shell(["run", "hello.lua"], in: dir, prefix: "")
        #expect(out.status == 0)
        #expect(out.stdout == shown, "\(out.stdout)")
        #expect(out.stderr == "")
    }

    @Test func theOneScreenExampleRunsWithoutWarningsAndPrintsWhatItsCommentsSay() throws {
        let readme = try H.readme()
        let script = try H.block(
            readme, info: "lua", startingWith: "local ItemSelected = Event \"ItemSelected\"            --")
        let dir = try H.folder(["screen.lua": script])
        let out = try H.shell(["run", "screen.lua"], in: dir, prefix: "")
        #expect(out.status == 0)
        #expect(out.stderr == "", "the README's one-screen example warns: \(out.stderr)")
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "B\tRoot\tItem#b")
        // `print(o.handled, o.by, o.responder, o.value) -- true  Root  handleEvent  ItemSelected{item="B"}`
        #expect(lines.dropFirst().first == "true\tRoot\thandleEvent\tItemSelected{item=\"B\"}")
        #expect(script.contains("-- true  Root  handleEvent  ItemSelected{item=\"B\"}"))
    }

    @Test func theSpecExampleFailsOnTheLineTheReadmeShows() throws {
        let readme = try H.readme()
        let spec = try H.block(readme, info: "lua", startingWith: "-- grid_spec.lua")
        let shown = try H.block(readme, startingWith: "$ responder test grid_spec.lua\n")
        let dir = try H.folder(["grid_spec.lua": spec])
        let out = try H.shell(["test", "grid_spec.lua"], in: dir, prefix: "")
        #expect(out.status == 1)
        let printed = "$ responder test grid_spec.lua\n" + out.stdout + "$ echo $?\n1\n"
        #expect(H.withoutTimes(printed) == H.withoutTimes(shown), "\(printed)")
    }
}
