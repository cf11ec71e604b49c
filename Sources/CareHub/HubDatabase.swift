public import Foundation
public import Logging
import NIOSSL
public import PostgresNIO

/// Where the hub's PostgreSQL is: a `postgres://USER@HOST:PORT/DATABASE` address without a password, and the
/// password from a file (`--database-password-file`) or a libpq password file (`PGPASSFILE`, else `~/.pgpass`).
///
/// A password written into the address is refused: command lines are visible to every user of the machine
/// (`ps`), and addresses end up in logs. Nothing here formats the password into a message.
public struct HubDatabase: Sendable {
    public var host: String
    public var port: Int
    /// A Unix socket directory (`?host=/run/postgresql`) instead of TCP.
    public var socketDirectory: String?
    public var username: String
    public var database: String
    /// `disable`, `prefer` (default) or `require`, as libpq's `sslmode`.
    public var sslMode: String
    var password: String?

    /// Reads the address and finds the password.
    /// - Parameters:
    ///   - url: `postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…&host=/socket/dir]`.
    ///   - passwordFile: a file whose first line is the password.
    ///   - environment: where `PGPASSFILE` and `HOME` are read.
    /// - Throws: ``HubError`` `.configuration` saying what is wrong (never the password).
    public init(
        url: String,
        passwordFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HubError) {
        guard let components = URLComponents(string: url),
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
        port = components.port ?? 5432
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        username = components.user ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : path
        sslMode = query["sslmode"] ?? "prefer"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw HubError(.configuration, "sslmode '\(sslMode)' is not disable, prefer or require")
        }
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw HubError(.configuration, "cannot read the database password file \(passwordFile)")
            }
            password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        } else {
            let file = environment["PGPASSFILE"] ?? environment["HOME"].map { "\($0)/.pgpass" }
            let wanted = [socketDirectory == nil ? host : "localhost", "\(port)", database, username]
            password = file.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.flatMap {
                Self.passwordEntry(in: $0, for: wanted)
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

    /// The driver's configuration.
    public var configuration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)",
                username: username,
                password: password,
                database: database
            )
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(.makeClientConfiguration())
                default: .prefer(.makeClientConfiguration())
                }
            configuration = PostgresClient.Configuration(
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

    /// Where the database is, for messages: no password.
    public var description: String {
        "postgres://\(username)@\(socketDirectory ?? host):\(port)/\(database)"
    }
}

extension HubDatabase {
    /// Runs `body` with a running client on this database (for commands: `hub enrol`, `hub status`), and closes it.
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
