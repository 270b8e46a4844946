import Testing

@testable import ResponderCLI

/// `responder test [PATH…]` without options skips the general parser: it must read exactly what
/// the general parser reads, every value at its default.
@Suite struct FastTestTests {
    static let commandLines: [[String]] = [
        [], ["spec"], ["a_spec.lua", "dir/", "with space", "ünïcode"], [""], ["help"], ["test", "run"],
    ]

    @Test(arguments: commandLines)
    func readsWhatTheGeneralParserReads(_ line: [String]) throws {
        let general = try TestCommand.parse(line)
        let fast = try #require(FastTest.parse(["test"] + line))
        #expect(fast == general.settings)
        #expect(fast.paths == line)
    }

    @Test func theComparisonSeesEveryOption() throws {
        // each option changes the settings the comparison above looks at
        for option in [
            ["--jobs", "3"], ["--format", "tap"], ["--output-file", "r.xml"], ["-o", "TAP"], ["--shard", "1/2"],
            ["--update-snapshots"], ["--filter", "x"], ["--seed", "4"], ["--safety", "strict"], ["--coverage"],
            ["--tags", "a"], ["--no-keep-going"], ["--shuffle"], ["--repeat", "2"], ["-C", "dir"], ["-p", "_test"],
            ["--lazy"], ["--list"], ["--helper", "h.lua"], ["-e", "x=1"], ["-r", "task"], ["--exclude-tags", "b"],
        ] {
            #expect(try TestCommand.parse(option).settings != TestSettings(), "\(option)")
        }
    }

    @Test func leavesAnythingWithAnOptionToTheGeneralParser() {
        for args in [
            ["run", "x.lua"], ["test", "--jobs", "2"], ["test", "spec", "-o", "TAP"], ["test", "--"],
            ["test", "--help"], ["test", "-h"], ["test", "--worker"], ["test", "spec", "--coverage"], [],
        ] {
            #expect(FastTest.parse(args) == nil, "\(args)")
        }
    }
}
