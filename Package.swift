// swift-tools-version:6.2

import PackageDescription

let package = Package(
    name: "CareBridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "carebridge", targets: ["carebridge"]),
        // The other libraries are internal modules of the bridge, not offered to other packages. These five stay
        // products only because the libFuzzer harness in Tests/Fuzz (a separate package) links them.
        .library(name: "GATTDecoding", targets: ["GATTDecoding"]),
        .library(name: "BridgeCore", targets: ["BridgeCore"]),
        .library(name: "SessionReplay", targets: ["SessionReplay"]),
        .library(name: "CarePlan", targets: ["CarePlan"]),
        .library(name: "DeviceProfiles", targets: ["DeviceProfiles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // 3.x or 4.x: jwt-kit 5 (SMART Backend Services' signed JWTs) needs 4.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // X.509 for the hub's client certificates: a bridge's key and request, the hub's CA signing it.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // The small dependency-free base the others import: JSON (one parser with line/column errors, one escaper,
        // path-carrying readers), hex, civil-date arithmetic, the zone-offset memo, files written without destroying
        // data.
        .target(name: "BridgeFoundation"),
        // Pure decoders: bytes in, typed measurements out. No I/O, no C.
        .target(name: "GATTDecoding", dependencies: ["BridgeFoundation"]),
        // Health-data model: quantity types, units, samples, normalisation, readings typed by people (manual
        // readings, decimals). No I/O; SHA-256 (sample ids) from swift-crypto.
        .target(
            name: "BridgeCore",
            dependencies: ["BridgeFoundation", "GATTDecoding", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // A small MQTT 3.1.1 publish client on SwiftNIO: packets, codec, reconnecting client actor; TLS through
        // swift-nio-ssl (BoringSSL).
        .target(
            name: "MQTTClient",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Streaming exports of samples: FHIR R4 bundles, CSV, JSON Lines. Pure: text out through a sink.
        .target(name: "SampleExport", dependencies: ["BridgeFoundation", "BridgeCore", "GATTDecoding"]),
        // Care-plan domain model and schedule engine (tasks, schedules, events, plan files). Pure: no I/O.
        .target(name: "CarePlan", dependencies: ["BridgeCore", "BridgeFoundation"]),
        // Care-plan store: versioned tasks, samples, outcomes, auto-completion (GRDB over SQLite).
        .target(
            name: "CareStore",
            dependencies: [
                "BridgeCore",
                "CarePlan",
                "BridgeFoundation", "GATTDecoding",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API: the sample insert binds its columns directly.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The device-protocol engine (pure; no I/O): connection plans, the session machine that runs a profile's
        // scripted steps (captures, conditions, byte templates), checksums and byte patterns, stored-record
        // readers, vendor epochs, Omron's memory-map protocol and the Eufy P2 handshake (AES-128-CBC, MD5).
        .target(
            name: "DeviceSessions",
            dependencies: [
                "BridgeCore", "BridgeFoundation", "GATTDecoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The frame language of device profiles: byte patterns, frames of fields, their samples, and the MiBeacon envelope
        // (pure; no I/O).
        // AES-CCM (encrypted MiBeacon advertisements) is built on _CryptoExtras' single-block AES.
        .target(
            name: "FrameDecoding",
            dependencies: [
                "BridgeCore", "BridgeFoundation", "DeviceSessions", "GATTDecoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Devices/ profiles: model, loader, and the catalogue that claims devices (ConnectionPolicy).
        .target(
            name: "DeviceProfiles",
            dependencies: ["BridgeCore", "BridgeFoundation", "DeviceSessions", "FrameDecoding", "GATTDecoding"],
            plugins: ["EmbedDeviceProfiles"]
        ),
        // The built-in profiles travel inside the binary: the plugin runs the embedder over Devices/*.json at
        // build time and compiles its output into DeviceProfiles (BuiltInProfiles.files).
        .plugin(
            name: "EmbedDeviceProfiles",
            capability: .buildTool(),
            dependencies: ["device-profile-embedder"],
            path: "Sources/EmbedDeviceProfiles"
        ),
        .executableTarget(name: "device-profile-embedder"),
        // Recordings/ (JSON Lines): reader, writer, replay transport, recorder, redaction.
        .target(
            name: "SessionReplay",
            dependencies: [
                "BridgeFoundation", "BridgeCore", "DeviceSessions", "GATTDecoding",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The ingest (transport events → profile → typed roles → samples → sink), pure: the pipeline, its report,
        // the runner that drives it over any transport into any sink, and the profile fixture runner. No store, no
        // services.
        .target(
            name: "SampleIngest",
            dependencies: [
                "BridgeCore", "BridgeFoundation", "GATTDecoding", "DeviceProfiles", "DeviceSessions", "FrameDecoding",
                "SessionReplay",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The bridge runtime: the ingest and its companion services in one swift-service-lifecycle ServiceGroup,
        // the store sink and session memory, the scanner watchdog.
        .target(
            name: "BridgeRuntime",
            dependencies: [
                "BridgeCore", "DeviceProfiles", "SampleIngest", "SessionReplay", "CareStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The delivery runtime: the outbox service generic over its channel, the one MQTT session a process shares
        // (availability and last will), Home Assistant discovery for samples and alerts, and the sample channel.
        .target(
            name: "MQTTBridge",
            dependencies: [
                "BridgeCore", "BridgeFoundation", "CarePlan", "CareStore", "MQTTClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // HTTPS uploads on the outbox runtime: the one async-http-client poster the hub's client, alert webhooks
        // and Nightscout share (CA file, loopback-only plain HTTP, no redirects), and the Nightscout channel
        // (glucose as API v1 `mbg` entries with the site's API secret).
        .target(
            name: "CareUploads",
            dependencies: [
                "BridgeCore", "BridgeFoundation", "CareStore", "MQTTBridge", "SampleExport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Alert rules and insights over the store: rule evaluation (pure), alert reconciliation, insights.
        .target(
            name: "Insights",
            dependencies: ["BridgeCore", "BridgeFoundation", "CarePlan", "CareStore", "GATTDecoding"]
        ),
        // The alert outbox's channels (webhooks over async-http-client with HTTPS, Home Assistant binary sensors on
        // the shared MQTT session, e-mail to the patient's contacts through a small SMTP client with STARTTLS) and
        // the bridge's in-process alert evaluation service.
        .target(
            name: "AlertDelivery",
            dependencies: [
                "CareStore", "CarePlan", "CareUploads", "Insights", "BridgeFoundation", "GATTDecoding", "MQTTBridge",
                "MQTTClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The care report: HTML with inline SVG charts, and PDF from a small writer (standard fonts, vector drawing).
        .target(
            name: "CareReport",
            dependencies: ["BridgeCore", "CarePlan", "CareStore", "Insights", "SampleExport"]
        ),
        // The care app: Today (Care Card and Tracker) and the care team's patients in a browser, on Hummingbird 2,
        // with server-side sessions, CSRF tokens, login throttling and live updates (Server-Sent Events).
        .target(
            name: "CareWeb",
            dependencies: [
                "BridgeCore", "CarePlan", "CareReport", "CareStore", "Insights", "SampleExport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The hub many bridges sync to: its PostgreSQL store (postgres-nio; ordered migrations), the sync endpoint on
        // Hummingbird 2 with per-bridge tokens, enrolment and status, what comes down to the bridges, metrics
        // (swift-metrics into a Prometheus registry at /metrics), and the bridge's hub channel for the outbox.
        .target(
            name: "CareHub",
            dependencies: [
                "BridgeCore", "BridgeFoundation", "CarePlan", "CareStore", "CareUploads", "CareWeb", "Insights",
                "MQTTBridge",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Helpers for the test targets and the benchmarks (not shipped; `package` access): a real mosquitto broker and
        // subscriber, a process runner that drains both pipes, the package-root and fixture locators, a seeded
        // generator, `eventually`, the synthetic heart-rate session behind a recording and the replay benchmark.
        .target(
            name: "TestSupport",
            dependencies: [
                "SessionReplay", "BridgeCore", "BridgeFoundation", "DeviceSessions", "GATTDecoding",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // System libraries (C at the edge): sd-bus + sd_notify, libudev, libbluetooth address helpers.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        // The live transport: bluetoothd over D-Bus (sd-bus), adapters through libudev.
        .target(
            name: "BlueZTransport",
            dependencies: [
                "BridgeCore",
                "BridgeFoundation", "DeviceSessions", "GATTDecoding",
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
                "BridgeFoundation",
                "GATTDecoding",
                "BridgeCore",
                "CarePlan",
                "CareStore",
                "DeviceProfiles",
                "DeviceSessions",
                "SessionReplay",
                "SampleIngest",
                "BridgeRuntime",
                "BlueZTransport",
                "SampleExport",
                "MQTTBridge",
                "Insights",
                "AlertDelivery",
                "MQTTClient",
                "CareReport",
                "CareWeb",
                "CareHub",
                "CareUploads",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Benchmarks that print figures (run with -c release).
        .executableTarget(
            name: "carebridge-bench",
            dependencies: [
                "BridgeFoundation", "GATTDecoding",
                "BridgeCore",
                "CarePlan",
                "CareReport",
                "CareStore",
                "SampleIngest",
                "BridgeRuntime",
                "DeviceProfiles",
                "SessionReplay",
                "BlueZTransport",
                "SampleExport",
                "TestSupport",
                "CareWeb",
                "CareHub",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        // The care app in a real browser (Debian's chromium through chromedriver, driven by Selenium) and over HTTP.
        .testTarget(
            name: "CareWebTests",
            dependencies: [
                "carebridge", "CareWeb", "CareStore", "CarePlan", "BridgeCore", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Browser"]
        ),
        // The hub against a real PostgreSQL started by the tests, and bridges pushing to it through the real binary;
        // the hub benchmark's driver (carebridge-bench hub) on a small fleet; the care team's overview over both
        // engines and the hub's dashboard in process.
        .testTarget(
            name: "CareHubTests",
            dependencies: [
                "carebridge", "carebridge-bench", "CareHub", "BridgeFoundation", "TestSupport", "BridgeCore",
                "CarePlan", "CareStore", "CareWeb", "Insights",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Nightscout: the entry mapping, and `carebridge nightscout push` against a local receiver of the v1 contract
        // (Fixtures/nightscout_receiver.py on the system python3) through outages, 503/429 and a wrong secret.
        .testTarget(
            name: "CareUploadsTests",
            dependencies: [
                "carebridge", "CareUploads", "CareStore", "BridgeCore", "BridgeFoundation", "TestSupport",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "BridgeFoundationTests", dependencies: ["BridgeFoundation", "TestSupport"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "GATTDecodingTests", dependencies: ["BridgeFoundation", "GATTDecoding", "TestSupport"]),
        .testTarget(
            name: "BridgeCoreTests",
            dependencies: ["BridgeCore", "BridgeFoundation", "GATTDecoding", "TestSupport"]
        ),
        .testTarget(
            name: "DeviceSessionsTests",
            dependencies: ["DeviceSessions", "BridgeCore", "BridgeFoundation", "GATTDecoding"]
        ),
        .testTarget(
            name: "CarePlanTests",
            dependencies: ["CarePlan", "BridgeCore", "BridgeFoundation", "TestSupport"]
        ),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "carebridge", "TestSupport", "CareStore", .product(name: "Logging", package: "swift-log"),
            ],
            // Recordings and profiles the safety replay tests read from disk.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "BlueZTransportTests",
            dependencies: [
                "carebridge",
                "BlueZTransport",
                "BridgeRuntime",
                "BridgeCore",
                "BridgeFoundation", "GATTDecoding",
                "DeviceProfiles", "DeviceSessions",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        // The real bluetoothd 5.66 in a QEMU guest with emulated controllers and simulated devices (one boot).
        .testTarget(
            name: "RealBlueZTests",
            dependencies: ["carebridge", "TestSupport"],
            exclude: ["Harness", "Simulators", "Fixtures"]
        ),
        .testTarget(
            name: "DeviceProfilesTests",
            dependencies: [
                "DeviceProfiles", "DeviceSessions", "FrameDecoding", "BridgeCore", "BridgeFoundation", "GATTDecoding",
                "TestSupport",
                "SampleIngest",
            ]
        ),
        .testTarget(
            name: "SessionReplayTests",
            dependencies: [
                "SessionReplay", "BridgeCore", "BridgeFoundation", "GATTDecoding", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SampleIngestTests",
            dependencies: [
                "SampleIngest", "SessionReplay", "DeviceProfiles", "DeviceSessions", "BridgeCore", "BridgeFoundation",
                "GATTDecoding",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "BridgeRuntimeTests",
            dependencies: [
                "BridgeRuntime", "SampleIngest", "SessionReplay", "DeviceProfiles", "BridgeCore", "BridgeFoundation",
                "GATTDecoding", "CarePlan", "CareStore",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CareStoreTests",
            dependencies: [
                "CareStore",
                "CarePlan",
                "BridgeCore",
                "GATTDecoding",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "MQTTClientTests",
            dependencies: [
                "MQTTClient",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "MQTTBridgeTests",
            dependencies: [
                "carebridge", "TestSupport", "MQTTBridge", "CarePlan", "CareStore", "BridgeCore",
                "BridgeFoundation", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "InsightsTests",
            dependencies: [
                "Insights", "CareStore", "CarePlan", "BridgeCore", "BridgeFoundation", "GATTDecoding", "AlertDelivery",
                "MQTTBridge",
                "TestSupport",
                "CareReport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Golden", "Fixtures", "Reference"]
        ),
        .testTarget(
            name: "SampleExportTests",
            dependencies: ["SampleExport", "BridgeCore", "BridgeFoundation", "GATTDecoding", "TestSupport"],
            exclude: ["Validator"]
        ),
    ]
)

for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    // Our targets only (not the dependencies): a warning fails every build, so CI's strict build and the test
    // run are one build instead of two.
    settings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = settings
}
