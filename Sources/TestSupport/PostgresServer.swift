package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL for one test: `initdb` into a scratch directory (a password-protected role), `postgres`
/// listening on a free loopback port and on a Unix socket in that directory, stopped (and startable again on the
/// same port and data) by the test.
///
/// Debian's binaries are found in `/usr/lib/postgresql/<version>/bin` (the `postgresql` package) or on `PATH`.
/// PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (`setpriv`), which owns its
/// data directory.
package final class PostgresServer: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// The directory with `initdb`, `postgres`.
    package static let binaries: String? = {
        let versions =
            ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap { Int($0) }.sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (versions + path + ["/usr/local/bin", "/usr/bin"]).first { directory in
            ["initdb", "postgres"].allSatisfy { FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)") }
        }
    }()
    /// Run the tests when PostgreSQL is here, and always in CI (where a missing server must fail them).
    package static var testsEnabled: Bool {
        binaries != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    package let directory: URL
    package let port: Int
    package let user = "carehub"
    /// The role's password (the test writes it to the files the hub reads).
    package let password = "pw-\(UUID().uuidString.prefix(12))"
    private let bin: String
    private var process: Process?
    private var logHandle: FileHandle?

    /// Creates the cluster (not started).
    package init(directory: URL) throws {
        guard let bin = Self.binaries else {
            throw Failure(description: "PostgreSQL is not installed (apt-get install -y postgresql)")
        }
        self.bin = bin
        self.directory = directory.appendingPathComponent("pg")
        port = try MosquittoBroker.freeLoopbackPort()
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        let passwordFile = self.directory.appendingPathComponent("initdb-password")
        try Data(password.utf8).write(to: passwordFile)
        try handOver(self.directory.path)
        try handOver(passwordFile.path)
        let command = asServerUser + ["\(bin)/initdb"]
        let initdb = try ChildProcess.run(
            URL(fileURLWithPath: command[0]),
            Array(command.dropFirst()) + [
                "-D", dataPath, "-U", user, "--auth=scram-sha-256", "--pwfile", passwordFile.path, "-E", "UTF8",
                "--no-sync",
            ]
        )
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.standardError)") }
    }

    package var dataPath: String { directory.appendingPathComponent("data").path }
    /// `postgres://carehub@127.0.0.1:PORT/postgres?sslmode=disable` (no password: the hub reads it from a file).
    package var url: String { "postgres://\(user)@127.0.0.1:\(port)/postgres?sslmode=disable" }

    /// As root: `setpriv` to the `postgres` user (which execs, so the process is the server itself).
    private var asServerUser: [String] {
        guard geteuid() == 0 else { return [] }
        return ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]
    }

    private func handOver(_ path: String) throws {
        guard geteuid() == 0 else { return }
        guard let account = getpwnam("postgres") else {
            throw Failure(description: "running as root, and there is no postgres user to run the server as")
        }
        guard chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
            throw Failure(description: "chown \(path) failed: errno \(errno)")
        }
    }

    /// Starts the server and waits until it accepts connections (`postmaster.pid` says `ready`).
    package func start() async throws {
        let process = Process()
        let command = asServerUser + ["\(bin)/postgres"]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments =
            Array(command.dropFirst()) + [
                "-D", dataPath, "-p", "\(port)", "-k", directory.path, "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off",
            ]
        let log = directory.appendingPathComponent("server.log")
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        logHandle = handle
        let pidFile = "\(dataPath)/postmaster.pid"
        try await waitUntil("PostgreSQL accepts connections on port \(port)") {
            guard process.isRunning else {
                throw Failure(description: "postgres exited: \(self.log)")
            }
            let lines = ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.count >= 8 && lines[7].trimmingCharacters(in: .whitespaces) == "ready"
        }
    }

    /// Stops the server (fast shutdown: open connections are cut) and waits for its exit.
    package func stop() async {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGINT)
        _ = await eventually(timeout: .seconds(60)) { !process.isRunning }
        process.waitUntilExit()
        try? logHandle?.close()
        self.process = nil
    }

    package var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    deinit {
        // A test that failed half-way: immediate shutdown, the server's children with it.
        if let process, process.isRunning { kill(process.processIdentifier, SIGQUIT) }
    }
}
