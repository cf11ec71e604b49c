// swift-tools-version:6.1

import PackageDescription

let package = Package(
    name: "CareBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "carebridge", targets: ["carebridge"]),
        .library(name: "GATTDecoding", targets: ["GATTDecoding"]),
        .library(name: "BridgeCore", targets: ["BridgeCore"]),
        .library(name: "BlueZTransport", targets: ["BlueZTransport"]),
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
        // System libraries (C at the edge): sd-bus + sd_notify, libudev, libbluetooth address helpers.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        // The live transport: bluetoothd over D-Bus (sd-bus), adapters through libudev.
        .target(
            name: "BlueZTransport",
            dependencies: [
                "BridgeCore",
                "GATTDecoding",
                "CSystemd",
                "CUdev",
                "CBluetooth",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The thin command-line front.
        .executableTarget(
            name: "carebridge",
            dependencies: [
                "GATTDecoding",
                "BridgeCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks that print figures (run with -c release).
        .executableTarget(name: "carebridge-bench", dependencies: ["GATTDecoding", "BridgeCore"]),
        .testTarget(name: "GATTDecodingTests", dependencies: ["GATTDecoding"]),
        .testTarget(name: "BridgeCoreTests", dependencies: ["BridgeCore", "GATTDecoding"]),
        .testTarget(name: "CLITests", dependencies: ["carebridge"]),
        .testTarget(
            name: "BlueZTransportTests",
            dependencies: [
                "BlueZTransport",
                "BridgeCore",
                "GATTDecoding",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
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
