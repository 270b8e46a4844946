/// The Lua half of SPEC §2.9 part B, loaded once per state by `EnvironmentBinding.realFunction`
/// the first time one of its names is used.
///
/// The prelude gets the Swift helpers table `K` and the module table `M`, and returns
/// `{ functions = {…}, methods = {…}, hooks = {…} }`. Per-node data lives in the node's "kit"
/// table, kept in the node userdata's function slot (so closures capturing their node are a pure
/// Lua cycle). Every user callback runs through `K.invoke`, which reports an error it raises from
/// the node as a `LuaError` (or the error value itself).
///
/// Each part is its own chunk, named after its file so that errors point at the real file and
/// line; `Lua/prelude.lua` strings them together.
enum EnvironmentPrelude {
    /// Where every chunk name of the prelude starts: its frames are skipped when a script
    /// location is wanted.
    static let chunkPrefix = "=Sources/ResponderKit/Lua/"

    /// The entry chunk, then the parts it is called with, in order: environment, preferences,
    /// notifications and observation; then the async tasks and the returned tables.
    static let chunks: [(name: String, source: [UInt8])] = [
        (chunkPrefix + "prelude.lua", PackageResources.prelude_lua),
        (chunkPrefix + "environment.lua", PackageResources.environment_lua),
        (chunkPrefix + "async.lua", PackageResources.async_lua),
    ]
}
