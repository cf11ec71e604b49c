// swift-tools-version:6.1

// libFuzzer harness for CareBridge's input parsers. Not part of the main package: it links only with the
// fuzzer runtime. Build and run from this directory (see docs/development.md, "Fuzzing"):
//
//   swift build -c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address
//   CAREBRIDGE_FUZZ=recording .build/release/carebridge-fuzz -max_total_time=60
//
// (`--sanitize fuzzer --sanitize address` gives no coverage: the last `-sanitize=` wins.)

import PackageDescription

let package = Package(
    name: "CareBridgeFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "CareBridge", path: "../..")],
    targets: [
        .executableTarget(
            name: "carebridge-fuzz",
            dependencies: [
                .product(name: "GATTDecoding", package: "CareBridge"),
                .product(name: "BridgeCore", package: "CareBridge"),
                .product(name: "SessionReplay", package: "CareBridge"),
                .product(name: "CarePlan", package: "CareBridge"),
                .product(name: "DeviceProfiles", package: "CareBridge"),
            ],
            // The fuzzer runtime provides main().
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ]
)
