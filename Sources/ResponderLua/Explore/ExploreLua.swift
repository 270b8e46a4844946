/// The Lua half of the `explore` table (`Lua/explore.lua`).
enum ExploreLua {
    static let chunkname = "=Sources/ResponderLua/Lua/explore.lua"

    /// Called with the Swift helpers; returns the public table and the registrations.
    static let source: [UInt8] = PackageResources.explore_lua
}
