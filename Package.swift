// swift-tools-version: 6.0
import PackageDescription

/// Dynamic exclusivity checks cost a thread-local lookup on every class property access on the
/// dispatch hot path; the engine and bridge are single-threaded and checked statically.
let hotPathSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

let package = Package(
    name: "ResponderSandbox",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ResponderEngine", targets: ["ResponderEngine"]),
        .library(name: "ResponderLua", targets: ["ResponderLua"]),
        .executable(name: "responder", targets: ["ResponderCLI"]),
        .executable(name: "responder-bench", targets: ["ResponderBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .target(name: "CLuaShim", dependencies: ["CLua"]),
        .target(name: "ResponderEngine", swiftSettings: hotPathSettings),
        .target(name: "ResponderLua", dependencies: ["ResponderEngine", "CLua", "CLuaShim"],
                swiftSettings: hotPathSettings),
        .executableTarget(
            name: "ResponderCLI",
            dependencies: [
                "ResponderLua", "ResponderEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "ResponderBench",
            dependencies: ["ResponderLua", "ResponderEngine", "CLua", "CLuaShim"]
        ),
        .testTarget(name: "ResponderEngineTests", dependencies: ["ResponderEngine"]),
        .testTarget(name: "ResponderLuaTests", dependencies: ["ResponderLua", "ResponderEngine", "CLua", "CLuaShim"]),
        .testTarget(name: "ResponderCLITests", dependencies: ["ResponderLua"]),
    ]
)
