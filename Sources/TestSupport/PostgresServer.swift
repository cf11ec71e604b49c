package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL for one test: `initdb` into a scratch directory (a password-protected role), `postgres`
/// listening on a free loopback port and on a Unix socket in that directory, stopped (and startable again on the
/// same port and data) by the test; or a streaming replica of another (`pg_basebackup -R`), promoted by the test.
///
/// Shared by the hub's tests and the bridge's end-to-end test of `run --hub`. Debian's binaries are found in `/usr/lib/postgresql/<version>/bin` (the `postgresql` package) or on `PATH`.
/// PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (`setpriv`), which owns its
/// data directory.
package final class PostgresServer: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
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
    /// The role's password (the test writes it to the files the hub reads); a replica's is its primary's.
    package let password: String
    /// Whether the server flushes its write-ahead log to disk (`fsync`, PostgreSQL's default), as a production
    /// hub does. Off unless set before ``start()``: tests need no durability across a machine crash, and are
    /// faster without it; the hub benchmark sets it.
    package var durable = false
    /// More server settings for ``start()`` (`-c name=value`), e.g. `synchronous_standby_names`.
    package var settings: [String: String] = [:]
    private let bin: String
    private var process: Process?
    private var logHandle: FileHandle?

    /// Creates the cluster (not started), `initdb` run without blocking a thread of the cooperative pool.
    package init(directory: URL) async throws {
        guard let bin = Self.binaries else {
            throw Failure(description: "PostgreSQL is not installed (apt-get install -y postgresql)")
        }
        self.bin = bin
        self.directory = directory.appendingPathComponent("pg")
        password = "pw-\(UUID().uuidString.prefix(12))"
        port = try MosquittoBroker.freeLoopbackPort()
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        let passwordFile = self.directory.appendingPathComponent("initdb-password")
        try Data(password.utf8).write(to: passwordFile)
        try handOver(self.directory.path)
        try handOver(passwordFile.path)
        let command = asServerUser + ["\(bin)/initdb"]
        let initdb = try await ChildProcess.run(
            URL(fileURLWithPath: command[0]),
            Array(command.dropFirst()) + [
                "-D", dataPath, "-U", user, "--auth=scram-sha-256", "--pwfile", passwordFile.path, "-E", "UTF8",
                "--no-sync",
            ]
        )
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.standardError)") }
    }

    /// Creates a streaming replica of the running `primary` (not started): `pg_basebackup -R` over the primary's
    /// replication connection, with the role's password in a pass file (mode 0600), never on a command line. Started,
    /// it is a hot standby until ``promote()``.
    package init(replicaOf primary: PostgresServer, directory: URL) async throws {
        bin = primary.bin
        self.directory = directory.appendingPathComponent("pg")
        password = primary.password
        port = try MosquittoBroker.freeLoopbackPort()
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        try handOver(self.directory.path)
        let passFile = self.directory.appendingPathComponent("pgpass").path
        try ScratchDirectory.writeSecret("127.0.0.1:\(primary.port):*:\(user):\(password)\n", to: passFile)
        try handOver(passFile)
        let command = asServerUser + ["\(bin)/pg_basebackup"]
        let backup = try await ChildProcess.run(
            URL(fileURLWithPath: command[0]),
            Array(command.dropFirst()) + [
                "-h", "127.0.0.1", "-p", "\(primary.port)", "-U", user, "-D", dataPath, "-R", "-X", "stream",
                "--no-sync", "-d", "passfile=\(passFile)",
            ],
            environment: ["PGPASSFILE": passFile]
        )
        guard backup.status == 0 else {
            throw Failure(description: "pg_basebackup failed: \(backup.standardError)")
        }
    }

    /// Promotes a started replica to a primary (`pg_ctl promote`, which waits until it accepts writes).
    package func promote() async throws {
        let command = asServerUser + ["\(bin)/pg_ctl"]
        let promoted = try await ChildProcess.run(
            URL(fileURLWithPath: command[0]),
            Array(command.dropFirst()) + ["promote", "-w", "-t", "300", "-D", dataPath]
        )
        guard promoted.status == 0 else {
            throw Failure(description: "pg_ctl promote failed: \(promoted.standardOutput)\(promoted.standardError)")
        }
    }

    /// Kills the server as a crash or a power cut would (SIGKILL to the postmaster; its backends notice and end)
    /// and waits for its exit. Its data is never started again here.
    package func kill9() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? logHandle?.close()
        self.process = nil
    }

    package var dataPath: String { directory.appendingPathComponent("data").path }
    /// `postgres://carehub@127.0.0.1:PORT/postgres?sslmode=disable` (no password: the hub reads it from a file).
    package var url: String { "postgres://\(user)@127.0.0.1:\(port)/postgres?sslmode=disable" }

    /// Writes the role's password to `passwordFile` (mode 0600) and returns the `carebridge hub` options that
    /// name the database and that file; with `replicas`, the address names this server and then each of them
    /// (libpq's multi-host form, `?target_session_attrs=read-write`), so the hub follows a failover.
    package func databaseOptions(passwordFile: String, replicas: [PostgresServer] = []) throws -> [String] {
        try ScratchDirectory.writeSecret("\(password)\n", to: passwordFile)
        guard !replicas.isEmpty else { return ["--database", url, "--database-password-file", passwordFile] }
        let servers = ([self] + replicas).map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        return [
            "--database",
            "postgres://\(user)@\(servers)/postgres?sslmode=disable&target_session_attrs=read-write",
            "--database-password-file", passwordFile,
        ]
    }

    /// Serves TLS (`ssl = on`) with `certificate` and `key` (PEM files), copied into the server's directory (the key
    /// mode 0600, owned by the server's user, as PostgreSQL wants it). Call before ``start()``.
    package func serveTLS(certificate: String, key: String) throws {
        let certificateCopy = directory.appendingPathComponent("server.crt").path
        let keyCopy = directory.appendingPathComponent("server.key").path
        try ScratchDirectory.writeSecret(try String(contentsOfFile: certificate, encoding: .utf8), to: certificateCopy)
        try ScratchDirectory.writeSecret(try String(contentsOfFile: key, encoding: .utf8), to: keyCopy)
        try handOver(certificateCopy)
        try handOver(keyCopy)
        settings["ssl"] = "on"
        settings["ssl_cert_file"] = certificateCopy
        settings["ssl_key_file"] = keyCopy
    }

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

    /// Starts the server and waits until it accepts connections (`postmaster.pid` says `ready`, or `standby` for a
    /// replica).
    package func start() async throws {
        let process = Process()
        let command = asServerUser + ["\(bin)/postgres"]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments =
            Array(command.dropFirst()) + [
                "-D", dataPath, "-p", "\(port)", "-k", directory.path, "-c", "listen_addresses=127.0.0.1",
            ] + (durable ? [] : ["-c", "fsync=off"])
            + settings.sorted { $0.key < $1.key }.flatMap { ["-c", "\($0.key)=\($0.value)"] }
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
            return lines.count >= 8 && ["ready", "standby"].contains(lines[7].trimmingCharacters(in: .whitespaces))
        }
    }

    /// Stops the server (fast shutdown: open connections are cut) and waits for its exit.
    package func stop() async {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGINT)
        _ = await eventually(timeout: .seconds(180)) { !process.isRunning }
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
