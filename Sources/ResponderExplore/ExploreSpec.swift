import ResponderLua

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a finding as a runnable spec (`explore-<seed>_spec.lua`): one public-API line per
/// action, ending with the assertion that fails.
package enum ExploreSpec {
    /// The spec's file name for a seed.
    package static func fileName(seed: UInt64) -> String { "explore-\(seed)_spec.lua" }

    /// How every spec starts: an existing file without it is never replaced.
    package static let header = "-- Found by:"

    /// The spec text. `scenarioPath` is the script's path relative to the spec's folder.
    /// `replay` is the command line that finds it again (``ExploreOptions/replayCommand``);
    /// `safety`, the level the exploration ran with, is given to `explore.scenario` unless it is
    /// the default.
    package static func text(
        _ f: ExploreFinding, script: String, scenarioPath: String, seed: UInt64, replay: String,
        safety: String = "relaxed"
    ) -> String {
        let base = script.split(separator: "/").last.map(String.init) ?? script
        let firstLine = f.minimalFailure.message.split(separator: "\n").first.map(String.init) ?? ""
        var out = "\(header) \(replay.replacingNewlines) (run \(f.run + 1), step \(f.step))\n"
        out += "-- Shrunk from \(f.original.count) to \(f.minimal.count) actions in \(f.replays) replays.\n"
        out += "-- Fails with: \(firstLine.replacingNewlines)\n"
        out += "describe(\(ExploreAction.quote("explore \(base) seed \(seed)")), function()\n"
        out += "  it(\(ExploreAction.quote(description(f.minimalFailure))), function()\n"
        out +=
            "    local root = explore.scenario(\(ExploreAction.quote(scenarioPath)), { seed = \(f.runSeed == Int64.min ? "math.mininteger" : String(f.runSeed))\(safety == "relaxed" ? "" : ", safety = " + ExploreAction.quote(safety)) })\n"
        let lines = f.minimal.map(\.lua)
        for line in lines.dropLast() { out += "    \(line)\n" }
        if let last = lines.last {
            switch f.minimalFailure.kind {
            case .invariant:
                out += "    \(last)\n"
                out += "    explore.check(\(ExploreAction.quote(f.minimalFailure.identity)))\n"
            case .violation:
                out += "    assert.no_warnings(function() \(last) end)\n"
            case .luaError:
                out += "    explore.noLuaError(function() \(last) end)\n"
            case .error, .limit:
                out += "    \(last)  -- raises\n"
            }
        }
        out += "  end)\nend)\n"
        return out
    }

    static func description(_ failure: ExploreFailure) -> String {
        switch failure.kind {
        case .invariant: return "keeps invariant '\(failure.identity)'"
        case .violation:
            return "records no \(failure.identity.split(separator: " ").first.map(String.init) ?? "safety") violation"
        case .luaError: return "reports no LuaError"
        case .error: return "raises no error"
        case .limit: return "stays within the limits"
        }
    }

    /// `path` relative to the folder `from` (both made absolute through the file system).
    package static func relativePath(_ path: String, from folder: String) -> String {
        guard let target = FileText.realPath(path), let base = FileText.realPath(folder) else { return path }
        let t = target.split(separator: "/")
        let b = base.split(separator: "/")
        var common = 0
        while common < t.count && common < b.count && t[common] == b[common] { common += 1 }
        let ups = Array(repeating: "..", count: b.count - common)
        let rest = t[common...].map(String.init)
        return (ups + rest).joined(separator: "/")
    }
}

extension String {
    var replacingNewlines: String { String(map { $0 == "\n" || $0 == "\r" ? " " : $0 }) }
}
