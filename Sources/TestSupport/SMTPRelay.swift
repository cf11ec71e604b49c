package import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real SMTP relay for the e-mail tests: Debian's aiosmtpd (`python3-aiosmtpd`) run by
/// `Tests/InsightsTests/Fixtures/smtp_relay.py` on a loopback port chosen at creation, with STARTTLS required and AUTH PLAIN when a
/// certificate and an account are given. Accepted messages are read back from its directory; files there make
/// it refuse recipients (550), defer DATA (451) or refuse it (554).
///
/// Tests gate on ``testsEnabled``: true when aiosmtpd is importable, and always under `CI=true`, where a missing
/// aiosmtpd makes ``init(certificate:user:password:)`` throw and the test fail.
package final class SMTPRelay: Sendable {
    package struct Failure: Error, CustomStringConvertible { package var description: String }

    /// One accepted message as the relay received it (after dot-unstuffing), and as Python's e-mail parser reads
    /// it (headers and body decoded).
    package struct Message: Decodable, Sendable {
        package var mailFrom: String
        package var recipients: [String]
        package var tls: Bool
        package var user: String?
        package var data: String
        package var subject: String
        package var from: String
        package var to: [String]
        package var date: String
        package var messageID: String
        package var contentType: String
        package var charset: String?
        package var body: String

        enum CodingKeys: String, CodingKey {
            case mailFrom = "mail_from"
            case recipients = "rcpt_tos"
            case tls, user, data, subject, from, to, date
            case messageID = "message_id"
            case contentType = "content_type"
            case charset, body
        }
    }

    package static let python = "/usr/bin/python3"
    package static let installHint = "install with: apt-get install -y python3-aiosmtpd"
    /// Where Debian's python3-aiosmtpd puts the package (looked up without starting a process).
    package static let packagePath = "/usr/lib/python3/dist-packages/aiosmtpd/__init__.py"
    package static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: python) && FileManager.default.fileExists(atPath: packagePath)
    }
    package static var testsEnabled: Bool { isInstalled || ProcessInfo.processInfo.environment["CI"] == "true" }

    package let port: Int
    package let directory: URL
    private let arguments: [String]
    private let child = Mutex<ChildProcess?>(nil)

    /// Picks the port; the relay is not started yet (a client connecting now is refused).
    package init(
        certificate: TestCertificateAuthority.Issued? = nil,
        user: String? = nil,
        password: String? = nil
    ) throws {
        guard Self.isInstalled else {
            throw Failure(description: "aiosmtpd is not importable by \(Self.python); \(Self.installHint)")
        }
        port = try MosquittoBroker.freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [
            PackageRoot.url.appendingPathComponent("Tests/InsightsTests/Fixtures/smtp_relay.py").path,
            "--dir", directory.path, "--port", "\(port)",
        ]
        if let certificate { arguments += ["--cert", certificate.certificate, "--key", certificate.key] }
        if let user, let password { arguments += ["--user", user, "--password", password] }
        self.arguments = arguments
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the relay and waits until it listens.
    package func start() async throws {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("ready"))
        let child = try ChildProcess(URL(fileURLWithPath: Self.python), arguments)
        self.child.withLock { $0 = child }
        let ready = directory.appendingPathComponent("ready").path
        try await waitUntil("the SMTP relay listens") {
            if !child.isRunning {
                throw Failure(description: "the SMTP relay exited: \(child.wait().standardError)")
            }
            return FileManager.default.fileExists(atPath: ready)
        }
    }

    package func stop() {
        guard
            let child = child.withLock({ child in
                defer { child = nil }
                return child
            })
        else { return }
        child.send(SIGKILL)  // a test process may ignore SIGTERM, and its children inherit that
        _ = child.wait()
    }

    /// Answers 550 to `RCPT TO` for these addresses.
    package func refuse(_ addresses: [String]) throws {
        try (addresses.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent("refuse"),
            atomically: true,
            encoding: .utf8
        )
    }

    /// Answers 451 to the next `times` DATA commands.
    package func deferData(times: Int) throws {
        try "\(times)".write(to: directory.appendingPathComponent("tempfail-data"), atomically: true, encoding: .utf8)
    }

    /// Answers 554 to every DATA command.
    package func rejectData() throws {
        try "".write(to: directory.appendingPathComponent("reject-data"), atomically: true, encoding: .utf8)
    }

    /// The messages accepted so far, in order.
    package var messages: [Message] {
        get throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasPrefix("message-") && $0.hasSuffix(".json") }
                .sorted { Int($0.dropFirst(8).dropLast(5)) ?? 0 < Int($1.dropFirst(8).dropLast(5)) ?? 0 }
            return try names.map {
                try JSONDecoder().decode(Message.self, from: Data(contentsOf: directory.appendingPathComponent($0)))
            }
        }
    }
}
