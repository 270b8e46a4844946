import ResponderLua
/// The Lua half of SPEC §2.9 part B (`Lua/environment.lua`, `Lua/async.lua`), loaded once per
/// state by `EnvironmentBinding.realFunction` the first time one of its names is used.
///
/// The chunk gets the Swift helpers table `K` and the module table `M`, and returns
/// `{ functions = {…}, methods = {…}, hooks = {…} }`. Per-node data lives in the node's "kit"
/// table, kept in the node userdata's function slot (so closures capturing their node are a pure
/// Lua cycle). Every user callback runs through `K.invoke`, which reports an error it raises from
/// the node as a `LuaError` (or the error value itself).
enum EnvironmentPrelude {
    /// The chunk name: frames of the prelude are skipped when a script location is wanted.
    static let chunkname = "=responder.kit"

    /// The whole prelude: environment, preferences, notifications and observation, then the
    /// async tasks and the returned tables (one Lua chunk, kept in two files by concept).
    static let source: [UInt8] = PackageResources.environment_lua + PackageResources.async_lua
}
