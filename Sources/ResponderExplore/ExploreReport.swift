import ResponderLua

/// The text and JSON forms of an exploration's result.
package enum ExploreReport {
    /// `replay` is the command line that finds the failure again (``ExploreOptions/replayCommand``).
    package static func pretty(_ r: ExploreResult, replay: String) -> String {
        var out = ""
        let rate = Int(r.actionsPerSecond.rounded())
        if let f = r.finding {
            out += "FAILED in run \(f.run + 1), step \(f.step): \(f.failure.message.firstLine)\n"
            if f.original.isEmpty {
                out +=
                    f.failure.kind == .error || f.failure.kind == .limit
                    ? "  the script failed before any action was explored\n"
                    : "  the state the script left fails the checks, before any action was explored\n"
                return out
            }
            if f.flaky {
                // (a limit strikes wherever the run had used it up: an action it stopped halfway
                // cannot be replayed as it ran, whatever the scenario does)
                out +=
                    f.failure.kind == .limit
                    ? "  did not fail the same way when replayed: a limit stopped the run in the middle of an action, "
                        + "which a replay cannot reproduce; raise the limit or lower --steps.\n"
                    : "  did not fail the same way when replayed: the scenario is not deterministic (it reads the clock?).\n"
                out +=
                    "  replay: \(f.minimalFailure == f.failure ? "no failure" : f.minimalFailure.message.firstLine)\n"
                return out
            }
            out +=
                "  shrunk \(f.original.count) → \(f.minimal.count) actions in \(f.replays) replays (\(seconds(f.shrinkSeconds))):\n"
            for (i, a) in f.minimal.enumerated() { out += "    \(i + 1). \(a.lua)\n" }
            out += "  failure: \(f.minimalFailure.message.firstLine)\n"
            if let trace = f.minimalFailure.trace, !trace.isEmpty {
                out += "  failing step's trace:\n"
                for line in trace.split(separator: "\n") { out += "    \(line)\n" }
            }
            if let path = f.specPath {
                out += "  spec: \(path)"
                if f.specVerified == false { out += " (warning: it did not fail when run once)" }
                out += "\n"
            }
            out += "  replay: \(replay)\n"
            return out
        }
        out +=
            "\(r.runs) runs, \(r.actions) actions (\(rate) actions/s), \(r.distinctActions) distinct actions, no failure\n"
        out += r.coverage.summary()
        return out
    }

    package static func json(_ r: ExploreResult, script: String, seed: UInt64) -> String {
        let handlers = r.coverage.responders.values.filter { !$0.isDeclaration }
        let reached = handlers.filter { $0.reached > 0 }.count
        var fields = [
            "\"script\": \(JSONText.string(script))", "\"seed\": \(seed)", "\"runs\": \(r.runs)",
            "\"actions\": \(r.actions)", "\"distinctActions\": \(r.distinctActions)",
            "\"actionsPerSecond\": \(Int(r.actionsPerSecond.rounded()))",
            "\"respondersReached\": \(reached)", "\"respondersRegistered\": \(handlers.count)",
        ]
        if let f = r.finding {
            var ff = [
                "\"run\": \(f.run + 1)", "\"step\": \(f.step)", "\"kind\": \(JSONText.string(f.failure.kind.rawValue))",
                "\"identity\": \(JSONText.string(f.failure.identity))",
                "\"message\": \(JSONText.string(f.minimalFailure.message))",
                "\"flaky\": \(f.flaky)", "\"shrunkFrom\": \(f.original.count)",
                "\"actions\": [\(f.minimal.map { JSONText.string($0.lua) }.joined(separator: ", "))]",
                "\"replays\": \(f.replays)",
            ]
            if let t = f.minimalFailure.trace { ff.append("\"trace\": \(JSONText.string(t))") }
            if let p = f.specPath { ff.append("\"spec\": \(JSONText.string(p))") }
            fields.append("\"failure\": {\(ff.joined(separator: ", "))}")
        } else {
            fields.append("\"failure\": null")
        }
        let cov = r.coverage.json().split(separator: "\n").joined(separator: "\n  ")
        fields.append("\"coverage\": \(cov)")
        return "{\n  " + fields.joined(separator: ",\n  ") + "\n}\n"
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return "\(ms / 1000).\(String(repeating: "0", count: 3 - String(ms % 1000).count))\(ms % 1000) s"
    }
}

extension String {
    var firstLine: String { split(separator: "\n", maxSplits: 1).first.map(String.init) ?? self }
}
