// swift-tools-version: 6.0
import PackageDescription

/// Dynamic exclusivity checks cost a thread-local lookup on every class property access on the
/// dispatch hot path; the engine and bridge are single-threaded and checked statically.
let hotPathSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

/// Executables find `Linking/libstdc++.so` first: a linker script that makes the `-lstdc++` of a
/// `--static-swift-stdlib` build link the static libstdc++.a, so start-up skips loading and
/// relocating libstdc++.so.6 (see the file).
let executableLinking: [LinkerSetting] = [.unsafeFlags(["-L\(Context.packageDirectory)/Linking"])]

let package = Package(
    name: "ResponderSandbox",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ResponderEngine", targets: ["ResponderEngine"]),
        .library(name: "ResponderGraph", targets: ["ResponderGraph"]),
        .library(name: "ResponderLua", targets: ["ResponderLua"]),
        .library(name: "ResponderKit", targets: ["ResponderKit"]),
        .library(name: "ResponderTesting", targets: ["ResponderTesting"]),
        .library(name: "ResponderREPL", targets: ["ResponderREPL"]),
        .executable(name: "responder", targets: ["ResponderCLI"]),
        .executable(name: "responder-bench", targets: ["ResponderBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    // Every arrow points one way (the README's "How it is built" draws them):
    // CLI → REPL, Testing → Kit → Lua → Engine; Graph → Engine; only Lua, Kit, Testing and REPL
    // import the C modules.
    targets: [
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .target(name: "CLuaShim", dependencies: ["CLua"]),
        .target(name: "ResponderEngine", swiftSettings: hotPathSettings),
        .target(name: "ResponderGraph", dependencies: ["ResponderEngine"]),
        .target(
            name: "ResponderLua", dependencies: ["ResponderEngine", "CLua", "CLuaShim"],
            resources: [.embedInCode("Lua")], swiftSettings: hotPathSettings),
        .target(
            name: "ResponderKit", dependencies: ["ResponderLua", "ResponderEngine", "CLua", "CLuaShim"],
            resources: [.embedInCode("Lua")], swiftSettings: hotPathSettings),
        .target(
            name: "ResponderTesting",
            dependencies: ["ResponderKit", "ResponderLua", "ResponderEngine", "CLua", "CLuaShim"],
            resources: [.embedInCode("Lua")]),
        .target(
            name: "ResponderREPL", dependencies: ["ResponderKit", "ResponderLua", "CLua", "CLuaShim"],
            resources: [.embedInCode("Lua")]),
        .target(
            name: "ResponderExplore",
            dependencies: ["ResponderKit", "ResponderLua", "ResponderEngine", "CLua", "CLuaShim"],
            resources: [.embedInCode("Lua")]),
        .executableTarget(
            name: "ResponderCLI",
            dependencies: [
                "ResponderREPL", "ResponderTesting", "ResponderKit", "ResponderGraph", "ResponderLua",
                "ResponderEngine", "ResponderExplore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: executableLinking
        ),
        .executableTarget(
            name: "ResponderBench",
            dependencies: [
                "ResponderTesting", "ResponderKit", "ResponderLua", "ResponderEngine", "ResponderExplore",
                "CLua", "CLuaShim",
            ],
            resources: [.embedInCode("Lua")],
            linkerSettings: executableLinking
        ),
        .testTarget(name: "ResponderEngineTests", dependencies: ["ResponderEngine"]),
        .testTarget(name: "ResponderGraphTests", dependencies: ["ResponderGraph", "ResponderKit", "ResponderLua"]),
        .testTarget(
            name: "ResponderLuaTests",
            dependencies: ["ResponderKit", "ResponderLua", "ResponderEngine", "CLua", "CLuaShim"]),
        .testTarget(
            name: "ResponderCLITests",
            dependencies: ["ResponderCLI", "ResponderTesting", "ResponderKit", "ResponderLua"]),
        .testTarget(name: "ResponderExploreTests", dependencies: ["ResponderExplore", "ResponderLua"]),
    ]
)
