import ResponderLua
/// The Lua half of `responder test` (`Lua/assertions.lua`, `Lua/spies.lua`, `Lua/runner.lua`): a
/// busted-compatible subset (describe/it/hooks, luassert-style `assert` chains, spies) plus the
/// responder assertions (SPEC §3). Loaded once per spec file into the file's fresh state; the
/// host passes a table of Swift functions (`TestFramework.swift`).
enum TestFrameworkLua {
    static let chunkname = "=(responder test)"

    /// The whole framework: helpers and assertions, spies and responder assertions, then
    /// describe/it and the runner (one Lua chunk, kept in three files by concept).
    static let source: [UInt8] =
        PackageResources.assertions_lua + PackageResources.spies_lua + PackageResources.runner_lua

    /// `matches(name, pattern)`: the `--filter` test (a Lua pattern, or plain text when the
    /// pattern is malformed).
    static let filter: [UInt8] = PackageResources.filter_lua
}
