import ResponderLua
import ResponderTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// `--coverage` end to end: LCOV that Debian's lcov/genhtml read without a warning, merged across
// workers and shards, responders as FN/FNDA, the summary table.

enum CoverageHarness: ResponderHarness {
    static let folderPrefix = "/tmp/responder-coverage-"

    static func run(_ dir: String, _ args: [String]) throws -> TestProcess.Output {
        try shell(args, in: dir, prefix: "")
    }

    /// Runs a shell command line in `dir`.
    static func sh(_ dir: String, _ command: String) -> TestProcess.Output? {
        TestProcess.run("/bin/sh", ["-c", "cd \(quote(dir)) && \(command)"])
    }

    static var hasLcov: Bool { access("/usr/bin/lcov", X_OK) == 0 && access("/usr/bin/genhtml", X_OK) == 0 }
}

private let screen = """
    local Ping = Event "Ping"
    local Pong = Event "Pong"
    local M = {}
    function M.build()
      local root = View "Root" { View "Item" { id = "a" }, View "Item" { id = "b" } }
      root:triggers(Ping, Pong)
      root:handleEvent(Ping, function() end)
      root:handleEvent(Pong, function()
        return true
      end)
      root:find("#a"):onTapGesture { trigger = Ping() }
      root:find("#b"):onTapGesture { trigger = Ping() }
      local t = {
        1,
        2,
      }
      return root
    end
    function M.never()
      local x = 1
      return x
    end
    return M
    """

private let specA = """
    local screen = require "screen"
    describe("a", function()
      it("taps a", function()
        local root = screen.build()
        mount(root)
        tap(root:find("#a"))
      end)
    end)
    """

private let specB = """
    local screen = require "screen"
    describe("b", function()
      it("builds", function()
        mount(screen.build())
      end)
    end)
    """

@Suite("coverage")
struct CoverageCommandTests {
    typealias H = CoverageHarness

    /// Each control is one record, counted once per input that drove it: two `Button`s without
    /// ids under one parent were one record `Root > Button`, and one tap counted 3 (the tap, the
    /// button's touchUpInside, …); found by an acceptance probe.
    @Test func controlsSharingAPathAreApartAndEachInputCountsOnce() throws {
        let dir = try H.folder([
            "two.lua": """
            local root = View "Root" { Button "Inc" { action = function() end }, Button "Dec" { action = function() end },
              Slider { value = State(0):binding(), range = { 0, 10 }, onEditingChanged = function() end } }
            mount(root)
            tap(root.children[1])
            slide(root.children[3], 4)
            slide(root.children[3], 6)
            """
        ])
        let out = try H.run(dir, ["run", "two.lua", "--coverage", "--coverage-format", "json"])
        #expect(out.termination == .exited(0), "\(out.stdout)\(out.stderr)")
        // (run prints the summary on stderr, after the script's own output)
        #expect(H.contains(out.stderr, "Tappable nodes and controls: 2 of 3 driven"), "\(out.stderr)")
        #expect(H.contains(out.stderr, "never driven: Button Root > Button[2]"), "\(out.stderr)")
        let json = H.read(dir + "/coverage/coverage.json") ?? ""
        #expect(H.contains(json, #"{"kind": "Button", "node": "Root > Button[1]", "driven": 1}"#), "\(json)")
        #expect(H.contains(json, #"{"kind": "Button", "node": "Root > Button[2]", "driven": 0}"#), "\(json)")
        #expect(H.contains(json, #"{"kind": "Slider", "node": "Root > Slider", "driven": 2}"#), "\(json)")
    }

    @Test func lcovIsReadByLcovAndGenhtmlWithoutWarnings() throws {
        let dir = try H.folder(["screen.lua": screen, "a_spec.lua": specA, "b_spec.lua": specB])
        let out = try H.run(dir, ["test", ".", "--coverage", "--jobs", "2"])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        // the summary table after the tests, and the run still ends with the count line (SPEC §3)
        #expect(H.contains(out.stdout, "Coverage (coverage/lcov.info):"), "\(out.stdout)")
        #expect(
            out.stdout.split(separator: "\n").last.map { $0.hasSuffix(" failed, 0 skipped") } == true, "\(out.stdout)")
        let lcov = H.read(dir + "/coverage/lcov.info") ?? ""
        // user files only, relative paths, empty test names
        #expect(
            H.contains(lcov, "SF:screen.lua\n") && H.contains(lcov, "SF:a_spec.lua\n")
                && H.contains(lcov, "SF:b_spec.lua\n"))
        #expect(!H.contains(lcov, "responder.kit") && !H.contains(lcov, "responder test"))
        #expect(!H.contains(lcov, "TN:a") && H.contains(lcov, "TN:\n"))
        // responders at their registration line; the Pong handler never ran
        #expect(H.contains(lcov, "FN:6,triggers(Ping+Pong):6\n"))
        #expect(H.contains(lcov, "FN:7,handleEvent(Ping):7\nFN:8,handleEvent(Pong):8\n"))
        #expect(H.contains(lcov, "FNDA:1,handleEvent(Ping):7\nFNDA:0,handleEvent(Pong):8\n"))
        // lines: the body of a function never called is a miss (its definition ran); a
        // table's last element is not executable (the compiler emitted nothing there)
        #expect(H.contains(lcov, "DA:19,2\nDA:20,0\nDA:21,0\nDA:22,2\n"))
        #expect(!H.contains(lcov, "DA:15,"))
        // the summary table and the unreached responders
        #expect(H.contains(out.stdout, "Coverage (coverage/lcov.info):"))
        #expect(H.contains(out.stdout, "screen.lua "))
        #expect(H.contains(out.stdout, "Responders: 1 of 2 reached"))
        #expect(H.contains(out.stdout, "never reached: screen.lua:8 handleEvent(Pong) on Root"))
        #expect(H.contains(out.stdout, "never passed: screen.lua:6 triggers(Ping, Pong) on Root: Pong"))
        #expect(H.contains(out.stdout, "never driven: tap Root > Item#b"))
        guard H.hasLcov else { return }
        let summary = H.sh(dir, "lcov --summary coverage/lcov.info 2>&1")
        #expect(summary?.status == 0)
        #expect(!H.contains(summary?.stdout ?? "", "WARNING") && !H.contains(summary?.stdout ?? "", "ERROR"))
        #expect(H.contains(summary?.stdout ?? "", "functions..: 66.7% (2 of 3 functions)"))
        let html = H.sh(dir, "genhtml -q -o html coverage/lcov.info 2>&1")
        #expect(html?.status == 0 && html?.stdout == "", "\(html?.stdout ?? "")")
    }

    @Test func jobsAndShardsMergeToTheSameTotals() throws {
        let dir = try H.folder(["screen.lua": screen, "a_spec.lua": specA, "b_spec.lua": specB])
        _ = try H.run(dir, ["test", ".", "--coverage", "--jobs", "1", "--coverage-output", "one.info"])
        _ = try H.run(dir, ["test", ".", "--coverage", "--jobs", "2", "--coverage-output", "two.info"])
        #expect(H.read(dir + "/one.info") == H.read(dir + "/two.info"))
        _ = try H.run(dir, ["test", ".", "--coverage", "--shard", "1/2", "--coverage-output", "s1.info"])
        _ = try H.run(dir, ["test", ".", "--coverage", "--shard", "2/2", "--coverage-output", "s2.info"])
        #expect(H.read(dir + "/s1.info") != H.read(dir + "/one.info"))
        guard H.hasLcov else { return }
        let merged = H.sh(dir, "lcov -q -a s1.info -a s2.info -o merged.info 2>&1")
        #expect(merged?.status == 0 && !H.contains(merged?.stdout ?? "", "WARNING"), "\(merged?.stdout ?? "")")
        let a = H.sh(dir, "lcov --summary merged.info 2>&1")?.stdout ?? "a"
        let b = H.sh(dir, "lcov --summary one.info 2>&1")?.stdout ?? "b"
        func rates(_ s: String) -> [Substring] { s.split(separator: "\n").filter { $0.contains("..:") } }
        #expect(!rates(a).isEmpty && rates(a) == rates(b), "\(a) vs \(b)")
    }

    @Test func runCoverageWritesTheDefaultFileAndJSON() throws {
        let dir = try H.folder([
            "screen.lua": screen, "main.lua": "local s = require 'screen'\nmount(s.build())\nprint('ok')\n",
        ])
        let out = try H.run(dir, ["run", "main.lua", "--coverage"])
        #expect(out.status == 0 && out.stdout == "ok\n")
        #expect(H.contains(out.stderr, "Coverage (coverage/lcov.info):"))
        let lcov = H.read(dir + "/coverage/lcov.info") ?? ""
        #expect(H.contains(lcov, "SF:main.lua\n") && H.contains(lcov, "SF:screen.lua\n"))
        let json = try H.run(dir, ["run", "main.lua", "--coverage", "--coverage-format", "json"])
        #expect(json.status == 0)
        let text = H.read(dir + "/coverage/coverage.json") ?? ""
        #expect(H.contains(text, "\"path\": \"screen.lua\""))
        #expect(H.contains(text, "\"label\": \"handleEvent(Pong)\""))
        #expect(H.contains(text, "\"neverPassed\": [\"Ping\", \"Pong\"]"))
        // a failing script still writes its coverage, and keeps its exit status
        let bad = try H.folder(["bad.lua": "local x = 1\nerror('no')\n"])
        let failed = try H.run(bad, ["run", "bad.lua", "--coverage"])
        #expect(failed.status == 1 && H.contains(H.read(bad + "/coverage/lcov.info") ?? "", "DA:2,1"))
    }

    /// The report is never written through a link a repository ships (`coverage/lcov.info`, or
    /// the `coverage` folder, pointing anywhere), nor over a file that is not an earlier report:
    /// `--coverage` replaced the file the link named (found by an adversary probe).
    @Test func coverageIsNeverWrittenThroughALinkOrOverAnotherFile() throws {
        let dir = try H.folder([
            "project/c_spec.lua": "it('c', function() end)\n", "project/c.lua": "print('c')\n",
            "victim.txt": "PRECIOUS\n",
            "project/coverage/keep": "",
        ])
        let project = dir + "/project"
        #expect(symlink("../../victim.txt", project + "/coverage/lcov.info") == 0)
        let linked = try H.run(project, ["test", "--coverage"])
        #expect(linked.status == 2, "\(linked.stderr)")
        #expect(
            H.contains(
                linked.stderr,
                "error: cannot write the coverage report to 'coverage/lcov.info': it is a symbolic link (refused"))
        #expect(H.read(dir + "/victim.txt") == "PRECIOUS\n")
        // a linked folder
        #expect(unlink(project + "/coverage/lcov.info") == 0)
        #expect(mkdir(dir + "/elsewhere", 0o755) == 0)
        let moved = project + "/coverage-old"
        #expect(rename(project + "/coverage", moved) == 0)
        #expect(symlink("../elsewhere", project + "/coverage") == 0)
        let folder = try H.run(project, ["run", "c.lua", "--coverage", "--coverage-format", "json"])
        #expect(folder.status == 2, "\(folder.stderr)")
        #expect(H.contains(folder.stderr, "coverage is a symbolic link (refused"), "\(folder.stderr)")
        #expect(H.read(dir + "/elsewhere/coverage.json") == nil)
        // over a file that is not a report: refused; over an earlier report: written
        #expect(unlink(project + "/coverage") == 0)
        #expect(rename(moved, project + "/coverage") == 0)
        _ = FileText.write("notes\n", to: project + "/coverage/lcov.info")
        let other = try H.run(project, ["test", "--coverage"])
        #expect(other.status == 2, "\(other.stderr)")
        #expect(H.contains(other.stderr, "it exists and is not a file this tool wrote"), "\(other.stderr)")
        #expect(H.read(project + "/coverage/lcov.info") == "notes\n")
        #expect(unlink(project + "/coverage/lcov.info") == 0)
        for _ in 0..<2 {
            let fine = try H.run(project, ["test", "--coverage"])
            #expect(fine.status == 0, "\(fine.stderr)")
            #expect(H.contains(H.read(project + "/coverage/lcov.info") ?? "", "SF:c_spec.lua"))
        }
    }

    @Test func subscribersAreCountedLikeResponders() throws {
        // SPEC §3.6: every registered responder; a subscriber is the receiving end of a
        // publisher, so it is listed at its registration line, reached or not
        let spec = """
            local Shaken = Event "Shaken"
            it("delivers", function()
              local app = View "App" { View "Feed" { id = "f" }, View "Side" { id = "s" } }
              local pub = app:publisher(Shaken)
              app:find("#f"):subscribe(Shaken, function() end)
              app:find("#s"):subscribe(Shaken, function() end, { id = "never" })
              mount(app)
              app:find("#s"):remove()
              assert.equal(1, pub(Shaken {}))
            end)
            """
        let dir = try H.folder(["pub_spec.lua": spec])
        let out = try H.run(dir, ["test", "pub_spec.lua", "--coverage"])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        let lcov = H.read(dir + "/coverage/lcov.info") ?? ""
        #expect(H.contains(lcov, "FN:5,subscribe(Shaken):5\nFN:6,subscribe(Shaken):6[id=never]\n"), "\(lcov)")
        #expect(H.contains(lcov, "FNDA:1,subscribe(Shaken):5\nFNDA:0,subscribe(Shaken):6[id=never]\n"), "\(lcov)")
        #expect(H.contains(out.stdout, "never reached: pub_spec.lua:6 subscribe(Shaken) [id=never] on Side#s"))
    }

    @Test func coverageOptionsAreCheckedAndWithoutCoverageNothingIsWritten() throws {
        let dir = try H.folder(["a_spec.lua": "it('x', function() end)"])
        #expect(try H.run(dir, ["test", ".", "--coverage-output", "x.info"]).status == 2)
        #expect(try H.run(dir, ["test", ".", "--coverage", "--coverage-format", "xml"]).status == 2)
        #expect(try H.run(dir, ["test", "."]).status == 0)
        #expect(!FileText.isDirectory(dir + "/coverage"))
    }
}
