import BlueZTransport
import Foundation
import TestSupport
import Testing

/// A private `dbus-daemon` with a fake `org.bluez` (python-dbusmock + `Fixtures/fake_bluez.py`) on it.
///
/// Tests give the printed address to the code under test (`DBUS_SYSTEM_BUS_ADDRESS` for child processes,
/// `.address(...)` in process) and drive the fake through its `org.bluez.Mock` control interface.
final class FakeBlueZ: @unchecked Sendable {
    static let python = "/usr/bin/python3"
    static let packageRoot = PackageRoot.url
    static let template = packageRoot.appendingPathComponent("Tests/BlueZTransportTests/Fixtures/fake_bluez.py")
    static let recordings = packageRoot.appendingPathComponent("Recordings")

    /// Whether dbus-daemon, /usr/bin/python3 and dbusmock are installed.
    static let toolsAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") || which("dbus-daemon") != nil,
            FileManager.default.isExecutableFile(atPath: python)
        else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import dbusmock, dbus, gi"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// Tests run when the tools are there, and always in CI (where a missing tool must fail, not skip).
    static let enabled = toolsAvailable || ProcessInfo.processInfo.environment["CI"] == "true"

    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    let address: String
    private let daemon: Process
    private var mock: Process?
    let control: DBusConnection
    let logURL: URL

    /// Starts the daemon and the fake; the fake has no adapter until `addAdapter`.
    init(startBlueZ: Bool = true) async throws {
        guard Self.toolsAvailable else {
            throw SetupError(
                description: "dbus-daemon, /usr/bin/python3 with python3-dbusmock, python3-dbus and python3-gi are "
                    + "required (apt-get install dbus python3-dbusmock python3-dbus python3-gi)"
            )
        }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: Self.which("dbus-daemon") ?? "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        let out = Pipe.closedOnExec()
        daemon.standardOutput = out
        try daemon.run()
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        self.daemon = daemon
        address = String(decoding: line, as: UTF8.self)
        guard !address.isEmpty else { throw SetupError(description: "dbus-daemon printed no address") }
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("fake-bluez-\(UUID().uuidString).log")
        do {
            control = try DBusConnection.open(.address(address))
        } catch {
            kill(daemon.processIdentifier, SIGKILL)
            throw error
        }
        if startBlueZ {
            do {
                try await startMock()
            } catch {
                stop()
                throw error
            }
        }
    }

    /// Starts (or restarts after `stopMock`) the fake bluetoothd.
    func startMock() async throws {
        let mock = Process()
        mock.executableURL = URL(fileURLWithPath: Self.python)
        mock.arguments = ["-m", "dbusmock", "--system", "--template", Self.template.path]
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        env["PYTHONUNBUFFERED"] = "1"
        mock.environment = env
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        mock.standardOutput = log
        mock.standardError = log
        try mock.run()
        self.mock = mock
        // Python starts slowly on a loaded machine.
        let appeared = await Self.eventually(timeout: .seconds(180)) {
            (try? await control.call(Self.bus("GetNameOwner", [.string("org.bluez")]))) != nil
        }
        if appeared { return }
        throw SetupError(
            description:
                "fake org.bluez did not appear; log: \((try? String(contentsOf: logURL, encoding: .utf8)) ?? "")"
        )
    }

    func stopMock() {
        // SIGKILL: children inherit the test runner's blocked-signal mask, so SIGTERM may never arrive.
        if let mock, mock.isRunning {
            kill(mock.processIdentifier, SIGKILL)
            mock.waitUntilExit()
        }
        mock = nil
    }

    func stop() {
        stopMock()
        control.close()
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logURL)
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    // MARK: - Control API

    static func bus(_ member: String, _ arguments: [DBusValue]) -> DBusMethodCall {
        DBusMethodCall(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: member,
            arguments: arguments
        )
    }

    @discardableResult
    func mockCall(_ member: String, _ arguments: [DBusValue] = []) async throws -> DBusMessage {
        try await control.call(
            DBusMethodCall(
                destination: "org.bluez",
                path: "/",
                interface: "org.bluez.Mock",
                member: member,
                arguments: arguments
            ),
            timeout: .seconds(120)
        )
    }

    func addAdapter(_ name: String = "hci0") async throws {
        try await mockCall("AddAdapter", [.string(name), .string("carebridge-test")])
    }

    func addPeripheral(_ address: String, _ spec: String, adapter: String = "hci0") async throws {
        try await mockCall("AddPeripheral", [.string(adapter), .string(address), .string(spec)])
    }

    func advertise(_ address: String, _ advert: String) async throws {
        try await mockCall("Advertise", [.string(address), .string(advert)])
    }

    @discardableResult
    func play(_ recording: URL, speed: Double = 0, adapter: String = "hci0") async throws -> [String] {
        let reply = try await mockCall("Play", [.string(adapter), .string(recording.path), .double(speed)])
        return reply.arguments.first?.stringArray ?? []
    }

    func setFault(_ name: String, _ value: String) async throws {
        try await mockCall("SetFault", [.string(name), .string(value)])
    }

    func journal() async throws -> [String] {
        var journal: [String]?
        // The name is gone while a simulated bluetoothd restart is under way: ask until the fake answers.
        _ = await Self.eventually(timeout: .seconds(180)) {
            journal = try? await mockCall("GetJournal").arguments.first?.stringArray ?? []
            return journal != nil
        }
        if let journal { return journal }
        return try await mockCall("GetJournal").arguments.first?.stringArray ?? []
    }

    struct PlaybackStatus: Decodable {
        var done: Bool
        var notifications: Int
        var pending: Int
    }

    func playbackStatus() async throws -> PlaybackStatus {
        let json = try await mockCall("PlaybackStatus").arguments.first?.string ?? "{}"
        return try JSONDecoder().decode(PlaybackStatus.self, from: Data(json.utf8))
    }

    /// Polls until the playback is done (or the timeout passes).
    func waitForPlayback(timeout: Duration = .seconds(180)) async throws -> PlaybackStatus {
        var last: PlaybackStatus?
        // The name disappears while a simulated bluetoothd restart is under way.
        _ = await Self.eventually(timeout: timeout) {
            last = try? await playbackStatus()
            return last?.done == true
        }
        if let last, last.done { return last }
        return try await playbackStatus()
    }

    func notificationTimes() async throws -> [Double] {
        let reply = try await mockCall("NotificationTimes")
        guard case .array(_, let values) = reply.arguments.first ?? .array(element: "d", []) else { return [] }
        return values.compactMap { if case .double(let d) = $0 { d } else { nil } }
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes (TestSupport's `eventually`).
    static func eventually(
        timeout: Duration = .seconds(180),
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        try await TestSupport.eventually(timeout: timeout, interval: .milliseconds(50), condition)
    }
}

/// Every suite that starts a private bus and a fake bluetoothd, run one test at a time: each test spawns a
/// dbus-daemon and a Python process, and in parallel they starve each other (and the timing of the fakes).
@Suite(.serialized, .enabled(if: FakeBlueZ.enabled, "needs dbus-daemon and python3-dbusmock for /usr/bin/python3"))
enum FakeBlueZSuites {}
