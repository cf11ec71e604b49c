public import Foundation
public import Logging
import NIOSSL
public import PostgresNIO

/// Where the hub's PostgreSQL is: a `postgres://USER@HOST:PORT/DATABASE` address without a password, and the
/// password from a file (`--database-password-file`) or a libpq password file (`PGPASSFILE`, else `~/.pgpass`).
///
/// The address may name several servers, as libpq's does (`postgres://USER@HOST1:PORT1,HOST2:PORT2/DATABASE`,
/// `?target_session_attrs=read-write` or `primary`): a primary and its replicas. The hub then writes to the first
/// writable one and follows a failover to another (``HubPrimary``).
///
/// Over the network the link is TLS with the server's certificate verified (``SSLMode``): `sslmode=require` (or
/// `verify-full`) is the default unless every server is a Unix socket or a loopback address, and `sslrootcert=FILE`
/// names the CA the server's certificate must be signed by.
///
/// A password written into the address is refused: command lines are visible to every user of the machine
/// (`ps`), and addresses end up in logs. Nothing here formats the password into a message.
public struct HubDatabase: Sendable {
    /// One server the address names.
    public struct Server: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 5432) {
            self.host = host
            self.port = port
        }

        /// `HOST:PORT` (`[HOST]:PORT` for an IPv6 address), for messages and logs.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// Which server the hub may write to, as libpq's `target_session_attrs`.
    public enum SessionTarget: String, Sendable {
        /// `SHOW transaction_read_only` is `off` (libpq's `read-write`; the default).
        case readWrite = "read-write"
        /// `SELECT pg_is_in_recovery()` is false (libpq's `primary`).
        case primary
    }

    /// The servers in the order the address names them (at least one).
    public var servers: [Server]
    /// A Unix socket directory (`?host=/run/postgresql`) instead of TCP.
    public var socketDirectory: String?
    public var username: String
    public var database: String
    /// `sslmode`: ``SSLMode/prefer`` by default for a socket or loopback servers, else ``SSLMode/require``.
    public var sslMode: SSLMode
    /// `sslrootcert`: the CA file (PEM) the server's certificate must be signed by; nil: the system's trusted CAs.
    public var rootCertificateFile: String?
    /// The certificates of ``rootCertificateFile``, read once.
    var rootCertificates: [NIOSSLCertificate]?
    /// How a probe tells a writable server from a standby.
    public var sessionTarget: SessionTarget
    /// Each server's password (a password file's line can differ per host and port).
    var passwords: [String?]

    /// The first server's host.
    public var host: String { servers[0].host }
    /// The first server's port.
    public var port: Int { servers[0].port }

    /// Reads the address and finds the password.
    /// - Parameters:
    ///   - url: `postgres://USER@HOST[:PORT][,HOST[:PORT]…]/DATABASE[?sslmode=…&sslrootcert=FILE&host=/socket/dir&`
    ///     `target_session_attrs=…]`.
    ///   - passwordFile: a file whose first line is the password.
    ///   - environment: where `PGPASSFILE` and `HOME` are read.
    /// - Throws: ``HubError`` `.configuration` saying what is wrong (never the password).
    public init(
        url: String,
        passwordFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HubError) {
        let (servers, single) = try Self.servers(in: url)
        guard let components = URLComponents(string: single),
            ["postgres", "postgresql"].contains(components.scheme ?? "")
        else {
            throw HubError(.configuration, "the database address is not postgres://USER@HOST:PORT/DATABASE")
        }
        guard components.password == nil else {
            throw HubError(
                .configuration,
                "the database address carries a password; give it in a file (--database-password-file or PGPASSFILE) "
                    + "instead, so it is not on the command line"
            )
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { _, last in last }
        )
        self.servers = servers
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        username = components.user ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : path
        (sslMode, rootCertificateFile, rootCertificates) = try Self.tls(
            mode: query["sslmode"],
            rootCertificate: query["sslrootcert"],
            local: socketDirectory != nil || servers.allSatisfy(Self.isLoopback)
        )
        let target = query["target_session_attrs"] ?? SessionTarget.readWrite.rawValue
        guard let sessionTarget = SessionTarget(rawValue: target) else {
            throw HubError(
                .configuration,
                "target_session_attrs '\(target)' is not read-write or primary: the hub writes to its database"
            )
        }
        self.sessionTarget = sessionTarget
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw HubError(.configuration, "cannot read the database password file \(passwordFile)")
            }
            let password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            passwords = servers.map { _ in password }
        } else {
            let file = environment["PGPASSFILE"] ?? environment["HOME"].map { "\($0)/.pgpass" }
            let text = file.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            let (socket, user, name) = (socketDirectory, username, database)
            passwords = servers.map { server in
                let wanted = [socket == nil ? server.host : "localhost", "\(server.port)", name, user]
                return text.flatMap { Self.passwordEntry(in: $0, for: wanted) }
            }
        }
    }

    /// The password of the first line `host:port:database:username:password` matching `wanted` (the first four
    /// fields; `*` matches anything; a socket matches `localhost`), as libpq reads a password file.
    static func passwordEntry(in text: String, for wanted: [String]) -> String? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var fields: [String] = []
            var field = ""
            var escaped = false
            for character in line {
                if escaped {
                    field.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":", fields.count < 4 {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(character)
                }
            }
            fields.append(field)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The driver's configuration for the first server.
    public var configuration: PostgresClient.Configuration { configuration(of: servers[0]) }

    /// The driver's configuration for one of ``servers``.
    public func configuration(of server: Server) -> PostgresClient.Configuration {
        var configuration = configuration(
            of: server,
            socket: PostgresClient.Configuration.init(unixSocketPath:username:password:database:)
        ) { host, port, username, password, database in
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case .disable: .disable
                case .require, .verifyCA: .require(tlsConfiguration)
                case .prefer: .prefer(tlsConfiguration)
                }
            return PostgresClient.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: tls
            )
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// One connection's configuration for `server` (a probe: is it writable?), giving up on connecting after
    /// `timeout`.
    /// - Throws: when the TLS context cannot be made.
    func connectionConfiguration(of server: Server, timeout: Duration) throws -> PostgresConnection.Configuration {
        var configuration = try configuration(
            of: server,
            socket: PostgresConnection.Configuration.init(unixSocketPath:username:password:database:)
        ) { host, port, username, password, database in
            let tls: PostgresConnection.Configuration.TLS =
                switch sslMode {
                case .disable: .disable
                case .require, .verifyCA: .require(try NIOSSLContext(configuration: tlsConfiguration))
                case .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
                }
            return PostgresConnection.Configuration(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: tls
            )
        }
        configuration.options.connectTimeout = .seconds(max(1, timeout.components.seconds))
        return configuration
    }

    /// Where `server` is and who logs in, handed to one of the driver's two configuration types: its Unix socket
    /// (`?host=/socket/dir`), else its host and port over TCP.
    private func configuration<Configuration>(
        of server: Server,
        socket: (_ path: String, _ username: String, _ password: String?, _ database: String?) -> Configuration,
        tcp: (_ host: String, _ port: Int, _ username: String, _ password: String?, _ database: String?) throws
            -> Configuration
    ) rethrows -> Configuration {
        let password = password(of: server)
        if let socketDirectory {
            return socket("\(socketDirectory)/.s.PGSQL.\(server.port)", username, password, database)
        }
        return try tcp(server.host, server.port, username, password, database)
    }

    private func password(of server: Server) -> String? {
        servers.firstIndex(of: server).flatMap { passwords[$0] }
    }

    /// Where the database is, for messages: every server, no password.
    public var description: String {
        let servers = servers.map { server in socketDirectory.map { "\($0):\(server.port)" } ?? "\(server)" }
        return "postgres://\(username)@\(servers.joined(separator: ","))/\(database)"
    }
}

extension HubDatabase {
    /// Runs `body` with a store on this database's writable server (for commands: `hub enrol`, `hub status`),
    /// and closes its client.
    /// - Parameter deadline: how long one operation (and one probe of a server) may take.
    public func withStore<Result: Sendable>(
        deadline: Duration,
        logger: Logger,
        _ body: @Sendable (HubStore) async throws -> Result
    ) async throws -> Result {
        let primary = HubPrimary(database: self, probeTimeout: deadline, logger: logger)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await primary.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(HubStore(primary: primary, deadline: deadline, logger: logger))
        }
    }

    /// Runs `body` with a running client on the first server of this database (tests, the benchmark), and closes
    /// it.
    public func withClient<Result: Sendable>(
        logger: Logger,
        _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
