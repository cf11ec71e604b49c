package import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real `mosquitto` broker for tests, on a fixed loopback port chosen at creation.
///
/// Written to be reused by any test target (it needs only Foundation): `start()`, `stop()`, `restart()` on the
/// same port, `pause()`/`resume()` with SIGSTOP/SIGCONT to make the broker unresponsive, and the broker's log
/// (`log_type all`) to assert what it received. The generated config listens on 127.0.0.1 only, allows
/// anonymous clients (unless told otherwise) and keeps nothing on disk.
///
/// When the tools are missing, ``isInstalled`` is false: tests gate on ``testsEnabled``, which is also true
/// under `CI=true` so that a CI machine without mosquitto fails instead of skipping.
package final class MosquittoBroker: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// A TLS listener next to the plain one: the broker's certificate and key, and the CA its clients'
    /// certificates must chain to when it requires one.
    package struct TLSListener: Sendable {
        package var certificate: String
        package var key: String
        package var clientCA: String?
        package var requireClientCertificate: Bool

        package init(certificate: String, key: String, clientCA: String? = nil, requireClientCertificate: Bool = false)
        {
            self.certificate = certificate
            self.key = key
            self.clientCA = clientCA
            self.requireClientCertificate = requireClientCertificate
        }
    }

    /// The plain MQTT listener (what ``MosquittoSubscriber`` uses).
    package let port: Int
    /// The TLS listener's port when the broker has one.
    package let tlsPort: Int?
    package let directory: URL
    private let process = Mutex<Process?>(nil)

    package var configURL: URL { directory.appendingPathComponent("mosquitto.conf") }
    package var logURL: URL { directory.appendingPathComponent("mosquitto.log") }

    package static let mosquittoPath = locate("mosquitto")
    package static let subscriberPath = locate("mosquitto_sub")
    package static var isInstalled: Bool { mosquittoPath != nil && subscriberPath != nil }
    /// Run broker tests when the tools are here, and always in CI (where a missing tool must fail the test).
    package static var testsEnabled: Bool {
        testsEnabled(installed: isInstalled, environment: ProcessInfo.processInfo.environment)
    }

    package static func testsEnabled(installed: Bool, environment: [String: String]) -> Bool {
        installed || environment["CI"] == "true"
    }
    package static let installHint = "install with: apt-get install -y mosquitto mosquitto-clients"

    /// Writes a config for a free loopback port (and a second one with TLS when `tls` is given); the broker is not
    /// started yet.
    /// - Parameter users: name → password of the accounts the broker knows (a `password_file` made with
    ///   `mosquitto_passwd`); with `allowAnonymous` false only they may connect.
    package init(
        allowAnonymous: Bool = true,
        users: [String: String] = [:],
        tls: TLSListener? = nil,
        installed: Bool = MosquittoBroker.isInstalled
    ) throws {
        guard installed else {
            throw Failure(
                description: "mosquitto or mosquitto_sub not found on PATH or in /usr/sbin; \(Self.installHint)"
            )
        }
        port = try Self.freeLoopbackPort()
        var tlsPort: Int?
        repeat { tlsPort = try tls.map { _ in try Self.freeLoopbackPort() } } while tlsPort == port
        self.tlsPort = tlsPort
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = """
            listener \(port) 127.0.0.1
            allow_anonymous \(allowAnonymous)
            persistence false
            user root
            log_dest file \(directory.appendingPathComponent("mosquitto.log").path)
            log_type all
            log_timestamp false

            """
        if !users.isEmpty {
            let passwordFile = directory.appendingPathComponent("passwords").path
            _ = FileManager.default.createFile(atPath: passwordFile, contents: nil)
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                let tool = Process()
                tool.executableURL = URL(
                    fileURLWithPath: Self.locate("mosquitto_passwd") ?? "/usr/bin/mosquitto_passwd"
                )
                tool.arguments = ["-b", passwordFile, user, password]
                tool.standardOutput = FileHandle.nullDevice
                tool.standardError = FileHandle.nullDevice
                try tool.run()
                tool.waitUntilExit()
                guard tool.terminationStatus == 0 else {
                    throw Failure(description: "mosquitto_passwd exited with \(tool.terminationStatus)")
                }
            }
            config += "password_file \(passwordFile)\n"
        }
        if let tls, let tlsPort {
            // Listener options after a `listener` line belong to that listener.
            config += """
                listener \(tlsPort) 127.0.0.1
                certfile \(tls.certificate)
                keyfile \(tls.key)
                require_certificate \(tls.requireClientCertificate)

                """
            if let clientCA = tls.clientCA { config += "cafile \(clientCA)\n" }
        }
        try config.write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the broker and returns once it accepts TCP connections on ``port``.
    package func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.mosquittoPath!)
        process.arguments = ["-c", configURL.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process.withLock { $0 = process }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if !process.isRunning {
                throw Failure(description: "mosquitto exited with \(process.terminationStatus); log:\n\(log)")
            }
            if Self.canConnect(port: port), tlsPort.map(Self.canConnect(port:)) ?? true { return }
            usleep(10_000)
        }
        throw Failure(description: "mosquitto is not listening on 127.0.0.1:\(port) after 10 s; log:\n\(log)")
    }

    /// Stops the broker and waits for it to exit; clients see their sockets close.
    ///
    /// Uses SIGKILL: a child of the test runner inherits a signal mask that blocks SIGTERM and SIGINT, and
    /// mosquitto never unblocks them. With persistence off nothing is lost that a graceful stop would keep.
    package func stop() {
        guard
            let process = process.withLock({ current -> Process? in
                defer { current = nil }
                return current
            })
        else { return }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops and starts again on the same port.
    package func restart() throws {
        stop()
        try start()
    }

    /// Freezes the broker (SIGSTOP): connections stay open, nothing is answered.
    package func pause() {
        if let pid = process.withLock({ $0?.processIdentifier }) { kill(pid, SIGSTOP) }
    }

    /// Lets a paused broker run again (SIGCONT).
    package func resume() {
        if let pid = process.withLock({ $0?.processIdentifier }) { kill(pid, SIGCONT) }
    }

    /// Everything the broker logged so far.
    package var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text` `count` times.
    package func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(180)) async throws {
        // `eventually` checks a last time at the deadline: on a loaded machine this task may not run again until
        // long after the broker wrote the line, and that must not count as the line missing.
        let shown = await eventually(timeout: timeout, interval: .milliseconds(10)) {
            log.components(separatedBy: text).count - 1 >= count
        }
        if shown { return }
        throw Failure(description: "mosquitto log has not shown '\(text)' ×\(count) within \(timeout); log:\n\(log)")
    }

    // MARK: - Helpers

    package static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories =
            path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/sbin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A loopback port nobody listens on right now (bind to port 0, read it back, close).
    package static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    package static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// An independent subscriber: `mosquitto_sub` on the test broker, printing `topic|retain|qos|payload` lines.
package final class MosquittoSubscriber: Sendable {
    package struct Message: Equatable, Sendable, CustomStringConvertible {
        package var topic: String
        package var retained: Bool
        package var qos: Int
        package var payload: String

        package init(topic: String, retained: Bool, qos: Int, payload: String) {
            self.topic = topic
            self.retained = retained
            self.qos = qos
            self.payload = payload
        }

        package var description: String { "\(topic) r\(retained ? 1 : 0) q\(qos) \(payload)" }
    }

    package let broker: MosquittoBroker
    package let clientID: String
    package let count: Int
    package let outputURL: URL
    private let process: Process

    /// Starts `mosquitto_sub -t TOPIC -C COUNT` and returns once the broker has sent it its SUBACK, so anything
    /// published afterwards reaches it.
    /// - Parameter liveOnly: skip (and do not count) the retained messages the broker hands a new subscriber
    ///   (`-R`): only what is published afterwards.
    package init(
        broker: MosquittoBroker,
        topic: String = "#",
        count: Int,
        qos: Int = 1,
        timeoutSeconds: Int = 300,
        liveOnly: Bool = false
    ) async throws {
        self.broker = broker
        self.count = count
        clientID = "sub-\(UUID().uuidString.prefix(8))"
        outputURL = broker.directory.appendingPathComponent("\(clientID).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MosquittoBroker.subscriberPath!)
        process.arguments =
            [
                "-h", "127.0.0.1", "-p", "\(broker.port)", "-i", clientID, "-q", "\(qos)", "-t", topic,
                "-C", "\(count)", "-W", "\(timeoutSeconds)", "-F", "%t|%r|%q|%p",
            ] + (liveOnly ? ["-R"] : [])
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        try await broker.waitForLog("Sending SUBACK to \(clientID)", timeout: .seconds(180))
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for `mosquitto_sub` to exit after ``count`` messages and returns them in arrival order.
    package func messages(timeout: Duration = .seconds(300)) async throws -> [Message] {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let text = output
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            throw MosquittoBroker.Failure(description: "mosquitto_sub got only:\n\(text)\nbroker log:\n\(broker.log)")
        }
        return Self.parse(text)
    }

    /// Whether `mosquitto_sub` is still running (it exits after ``count`` messages or its timeout).
    package var isRunning: Bool { process.isRunning }

    /// What `mosquitto_sub` has written so far.
    package var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// The messages received so far, in arrival order.
    package var received: [Message] { Self.parse(output) }

    /// Complete lines only: the text after the last newline may still be being written.
    static func parse(_ text: String) -> [Message] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { line in
            let fields = line.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { return nil }
            return Message(topic: fields[0], retained: fields[1] == "1", qos: Int(fields[2]) ?? -1, payload: fields[3])
        }
    }
}
