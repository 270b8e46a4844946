import ResponderTesting
import Testing

@testable import ResponderCLI

/// The worker fast path reads back what `TestCommand` writes for its workers exactly as the
/// general parser does.
@Suite struct FastWorkerTests {
    static let commandLines: [[String]] = [
        [],
        ["--safety", "strict", "--max-memory", "64"],
        [
            "--safety", "disabled", "--max-memory", "512", "--max-instructions", "1000", "--timeout", "2.5", "--seed",
            "7",
        ],
        ["--shuffle-seed", "12345", "--repeat", "3", "--shuffle-tests", "--list", "--lazy"],
        ["--filter=a b", "--filter=x=y", "--filter-out=slow", "--tags=net,db", "--tags=ui", "--exclude-tags=flaky"],
        ["--sort-tests", "--suppress-pending", "--no-keep-going", "--update-snapshots", "--coverage"],
        ["--lpath=lib/?.lua", "--lpath=src/?/init.lua", "--helper=spec/helper.lua", "-e", "x = 1", "-e", "y = 'a=b'"],
    ]

    @Test(arguments: commandLines)
    func readsWhatTheGeneralParserReads(_ line: [String]) throws {
        let args = ["--safety", "relaxed", "--max-memory", "512"] + line
        let general = try TestCommand.parse(["--worker"] + args)
        let fast = try #require(FastWorker.parse(["test", "--worker"] + args))
        #expect("\(fast)" == "\(general.workerOptions)")
    }

    @Test func leavesAnythingElseToTheGeneralParser() {
        for args in [
            ["test"], ["run", "--worker"], ["test", "--worker", "--jobs", "2"], ["test", "--worker", "--repeat", "0"],
            ["test", "--worker", "--max-memory", "lots"], ["test", "--worker", "--safety", "loose"],
            ["test", "--worker", "-e"], ["test", "--worker", "--output=json"], ["test", "--worker", "spec"],
        ] {
            #expect(FastWorker.parse(args) == nil, "\(args)")
        }
    }
}
