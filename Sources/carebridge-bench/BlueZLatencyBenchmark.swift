import BlueZTransport
import BridgeCore
import BridgeFoundation
import BridgeRuntime
import CarePlan
import CareStore
import DeviceProfiles
import Foundation
import Logging
import SampleIngest
import TestSupport

/// Notification leaving the simulated peripheral (the fake bluetoothd emits `PropertiesChanged{Value}`) →
/// the transaction that stores the sample and updates its care-plan event has committed.
///
/// Needs dbus-daemon and /usr/bin/python3 with python3-dbusmock (as the tests do). Runs the real D-Bus path:
/// private bus, fake org.bluez (Tests/BlueZTransportTests/Fixtures/fake_bluez.py), BlueZTransport, the
/// ingestion pipeline and a CareStore on disk.
let blueZLatencyBenchmark = Benchmark(
    name: "bluez-latency",
    summary: "notification from the fake peripheral → completed event committed in the store (median, p99)"
) {
    try await runBlueZLatency(notifications: 3000, interval: 10)
}

/// Stamps the commit time of every sample, keyed by its payload.
actor TimingSink: SampleSink {
    let inner: CareStoreSink
    var committed: [String: Date] = [:]

    init(inner: CareStoreSink) { self.inner = inner }

    func write(_ samples: [QuantitySample]) async throws {
        try await inner.write(samples)
        let now = Date()
        for sample in samples where committed[Hex.string(sample.rawPayload)] == nil {
            committed[Hex.string(sample.rawPayload)] = now
        }
    }

    var count: Int { committed.count }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
}

func runBlueZLatency(notifications: Int, interval: UInt32) async throws {
    let template = PackageRoot.url.appendingPathComponent("Tests/BlueZTransportTests/Fixtures/fake_bluez.py").path
    let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let zone = TimeZone(identifier: "Europe/Berlin")!
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "carebridge-bench-\(UUID().uuidString)"
    )
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    // Private bus and fake bluetoothd.
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
    daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
    let pipe = Pipe()
    daemon.standardOutput = pipe
    daemon.standardError = FileHandle.nullDevice
    try daemon.run()
    defer { kill(daemon.processIdentifier, SIGKILL) }
    var line = Data()
    while true {
        let byte = pipe.fileHandleForReading.readData(ofLength: 1)
        if byte.isEmpty || byte == Data([0x0A]) { break }
        line.append(byte)
    }
    let address = String(decoding: line, as: UTF8.self)
    let mock = Process()
    mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    mock.arguments = ["-m", "dbusmock", "--system", "--template", template]
    mock.environment = ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
    mock.standardOutput = FileHandle.nullDevice
    mock.standardError = FileHandle.nullDevice
    try mock.run()
    defer { kill(mock.processIdentifier, SIGKILL) }

    let control = try DBusConnection.open(.address(address))
    defer { control.close() }
    func mockCall(_ member: String, _ arguments: [DBusValue]) async throws -> DBusMessage {
        try await control.call(
            DBusMethodCall(
                destination: "org.bluez",
                path: "/",
                interface: "org.bluez.Mock",
                member: member,
                arguments: arguments
            ),
            timeout: .seconds(30)
        )
    }
    var up = false
    for _ in 0..<200 where !up {
        up = (try? await mockCall("GetJournal", [])) != nil
        if !up { try await Task.sleep(for: .milliseconds(50)) }
    }
    guard up else { throw BenchError(description: "fake org.bluez did not start (python3-dbusmock installed?)") }
    let device = "02:00:00:00:00:05"
    _ = try await mockCall("AddAdapter", [.string("hci0"), .string("bench")])
    _ = try await mockCall(
        "AddPeripheral",
        [.string("hci0"), .string(device), .string(#"{"name": "HRM", "services": {"180D": [["2A37", "notify"]]}}"#)]
    )

    // The bridge: transport → pipeline → store with a plan linking heart rate.
    var configuration = BlueZConfiguration()
    configuration.bus = .address(address)
    let bridge = try await TimedHeartRateBridge.start(
        configuration: configuration,
        zone: zone,
        directory: directory,
        logger: logger
    )
    let sink = bridge.sink
    var subscribed = false
    for _ in 0..<300 where !subscribed {
        _ = try? await mockCall(
            "Advertise",
            [.string(device), .string(#"{"name": "HRM", "rssi": -50, "serviceUUIDs": ["180D"]}"#)]
        )
        try await Task.sleep(for: .milliseconds(100))
        let journal = try await mockCall("GetJournal", []).arguments.first?.stringArray ?? []
        subscribed = journal.contains { $0.hasPrefix("StartNotify") }
    }
    guard subscribed else { throw BenchError(description: "the bridge never subscribed") }

    // Heart Rate Measurement with RR interval: unique payload per notification.
    let payloads = (0..<notifications).map { i -> [UInt8] in
        let rr = UInt16(600 + i)
        return [0x10, UInt8(60 + i % 40), UInt8(rr & 0xFF), UInt8(rr >> 8)]
    }
    _ = try await mockCall(
        "NotifySeries",
        [.string(device), .string("2A37"), .strings(payloads.map { Hex.string($0) }), .uint32(interval)]
    )
    let deadline = Date().addingTimeInterval(Double(notifications) * Double(interval) / 1000 + 60)
    while await sink.count < notifications, Date() < deadline {
        try await Task.sleep(for: .milliseconds(200))
    }
    let reply = try await mockCall("NotificationTimes", [])
    var emitted: [Double] = []
    if case .array(_, let values) = reply.arguments.first {
        emitted = values.compactMap { if case .double(let d) = $0 { d } else { nil } }
    }
    let committed = await sink.committed
    await bridge.stop()

    var latencies: [Double] = []
    for (payload, sent) in zip(payloads, emitted) {
        if let at = committed[Hex.string(payload)] { latencies.append((at.timeIntervalSince1970 - sent) * 1000) }
    }
    latencies.sort()
    guard !latencies.isEmpty else { throw BenchError(description: "no sample reached the store") }
    func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count - 1) * p))] }
    print(
        "notifications emitted: \(emitted.count), stored: \(latencies.count), lost: \(emitted.count - latencies.count)"
    )
    print(
        String(
            format: "latency ms: median %.2f  p90 %.2f  p99 %.2f  max %.2f",
            percentile(0.5),
            percentile(0.9),
            percentile(0.99),
            latencies.last!
        )
    )
}
