// swift-tools-version:6.1

import PackageDescription

let package = Package(
    name: "CareBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "carebridge", targets: ["carebridge"]),
        .library(name: "GATTDecoding", targets: ["GATTDecoding"]),
        .library(name: "BridgeCore", targets: ["BridgeCore"]),
        .library(name: "DeviceProfiles", targets: ["DeviceProfiles"]),
        .library(name: "SessionReplay", targets: ["SessionReplay"]),
        .library(name: "CareBridgeKit", targets: ["CareBridgeKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Pure decoders: bytes in, typed measurements out. No I/O, no C.
        .target(name: "GATTDecoding"),
        // Health-data model: quantity types, units, samples, normalisation. No I/O, no C.
        .target(name: "BridgeCore", dependencies: ["GATTDecoding"]),
        // Devices/ profiles: model, loader, and the catalogue that claims devices (ConnectionPolicy).
        .target(name: "DeviceProfiles", dependencies: ["BridgeCore", "GATTDecoding"]),
        // Recordings/ (JSON Lines): reader, writer, replay transport, recorder, redaction.
        .target(
            name: "SessionReplay",
            dependencies: ["BridgeCore", "GATTDecoding", .product(name: "Logging", package: "swift-log")]
        ),
        // The ingestion pipeline: transport events → profile → decoder → samples → sink.
        .target(
            name: "CareBridgeKit",
            dependencies: [
                "BridgeCore", "GATTDecoding", "DeviceProfiles", "SessionReplay",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The thin command-line front.
        .executableTarget(
            name: "carebridge",
            dependencies: [
                "GATTDecoding",
                "BridgeCore",
                "DeviceProfiles",
                "SessionReplay",
                "CareBridgeKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks that print figures (run with -c release).
        .executableTarget(name: "carebridge-bench", dependencies: ["GATTDecoding", "BridgeCore"]),
        .testTarget(name: "GATTDecodingTests", dependencies: ["GATTDecoding"]),
        .testTarget(name: "BridgeCoreTests", dependencies: ["BridgeCore", "GATTDecoding"]),
        .testTarget(name: "CLITests", dependencies: ["carebridge"]),
        .testTarget(name: "DeviceProfilesTests", dependencies: ["DeviceProfiles", "BridgeCore", "GATTDecoding"]),
        .testTarget(
            name: "SessionReplayTests",
            dependencies: ["SessionReplay", "BridgeCore", "GATTDecoding", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "CareBridgeKitTests",
            dependencies: [
                "CareBridgeKit", "SessionReplay", "DeviceProfiles", "BridgeCore", "GATTDecoding",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Golden"]
        ),
    ]
)

for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
