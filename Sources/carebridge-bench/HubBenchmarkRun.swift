import CareHub
import Foundation
import Logging
import PostgresNIO
import TestSupport

/// One fleet size of the hub benchmark, start to end: PostgreSQL, the hub, enrolment, the bridges' day, the
/// dashboard's queries, the exactly-once check; everything stopped afterwards.
struct HubBenchmarkRun: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The day every bridge sends (Europe/Berlin).
    static let dayText = "2026-11-20"

    var bridges: Int
    var options: HubBenchmarkOptions
    var directory: URL

    /// The fleet: bridge `bridge-0001` for patient `patient-0001` and so on, the heart-rate bridges first (so
    /// their long day overlaps the spot bridges' instead of trailing alone).
    func fleet(tokenFiles: [String]) -> [HubLoadDriver.Bridge] {
        let zone = TimeZone(identifier: "Europe/Berlin")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let day = calendar.date(from: DateComponents(year: 2026, month: 11, day: 20))!
        let heartRate = options.heartRateBridges(of: bridges)
        return (0..<bridges).map { index in
            HubLoadDriver.Bridge(
                day: SimulatedBridgeDay(
                    bridge: Self.bridgeName(index),
                    patient: Self.patientName(index),
                    heartRateSeconds: index < heartRate ? options.heartRateSeconds : 0,
                    batchSize: options.batchSize,
                    day: day,
                    zone: zone,
                    seed: index
                ),
                tokenFile: tokenFiles[index]
            )
        }
    }

    static func bridgeName(_ index: Int) -> String { String(format: "bridge-%04d", index + 1) }
    static func patientName(_ index: Int) -> String { String(format: "patient-%04d", index + 1) }

    func run() async throws -> HubBenchmarkFigures {
        let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let postgres = try await PostgresServer(directory: directory)
        postgres.durable = options.durable
        try await postgres.start()
        do {
            let figures = try await measure(postgres: postgres, logger: logger)
            await postgres.stop()
            return figures
        } catch {
            await postgres.stop()
            throw error
        }
    }

    /// Everything between PostgreSQL's start and its stop.
    private func measure(postgres: PostgresServer, logger: Logger) async throws -> HubBenchmarkFigures {
        let passwordFile = directory.appendingPathComponent("db-password").path
        try writePrivateFile(passwordFile, "\(postgres.password)\n")
        var authority: TestCertificateAuthority?
        var serverArguments = ["--hub-child", postgres.url, passwordFile]
        if options.tls {
            let made = try TestCertificateAuthority()
            let issued = try made.issueServer(named: "hub", ipAddresses: ["127.0.0.1"])
            serverArguments += [issued.certificate, issued.key]
            authority = made
        }
        let (hub, url) = try startBenchmarkServer(serverArguments, name: "the hub child")
        defer {
            hub.terminate()
            hub.waitUntilExit()
        }
        hubProgress("\(bridges) bridges: PostgreSQL on port \(postgres.port), hub at \(url)")

        let database = try HubDatabase(url: postgres.url, passwordFile: passwordFile)
        let tokenFiles = try await enrol(database: database, logger: logger)
        let fleet = fleet(tokenFiles: tokenFiles)
        let expected = fleet.reduce(0) { $0 + $1.day.count }
        hubProgress("\(bridges) bridges enrolled; sending \(expected) readings")
        let driver = HubLoadDriver(
            hub: url,
            caFile: authority?.certificate,
            concurrency: options.concurrency,
            progress: { hubProgress("\(bridges) bridges: \($0)") }
        )
        let result = try await driver.run(fleet)
        let memory = rss(of: hub.processIdentifier)
        hubProgress("\(bridges) bridges: sent in " + String(format: "%.1f s", result.seconds) + "; querying")

        let dashboard = try await database.withClient(logger: logger) { client in
            try await HubDashboardProbe(store: HubStore(client: client, logger: logger), logger: logger)
                .measure(expected: Dictionary(uniqueKeysWithValues: fleet.map { ($0.day.bridge, $0.day.count) }))
        }
        _ = authority
        return HubBenchmarkFigures(
            bridges: bridges,
            heartRateBridges: options.heartRateBridges(of: bridges),
            tls: options.tls,
            durable: options.durable,
            readings: result.rows,
            batches: result.batches,
            seconds: result.seconds,
            latencies: result.latencies,
            retries: result.retries,
            statusMilliseconds: dashboard.statusMilliseconds,
            latestMilliseconds: dashboard.latestMilliseconds,
            latestRows: dashboard.latestRows,
            hubMegabytes: memory,
            problems: dashboard.problems + (result.rows == expected ? [] : ["\(result.rows) of \(expected) confirmed"])
        )
    }

    /// Enrols every bridge for its patient (as `carebridge hub enrol` does) and writes each token to a file only
    /// this user may read.
    /// - Returns: the token files, by bridge index.
    private func enrol(database: HubDatabase, logger: Logger) async throws -> [String] {
        let bridges = bridges
        let directory = directory
        return try await database.withClient(logger: logger) { client in
            let store = HubStore(client: client, logger: logger)
            // The hub child migrates before it listens; migrating here too is a no-op under the same lock.
            _ = try await store.migrate()
            var files: [String] = []
            for index in 0..<bridges {
                guard
                    let token = try await store.enrol(
                        bridge: Self.bridgeName(index),
                        patients: [Self.patientName(index)]
                    )
                else { throw Failure(description: "\(Self.bridgeName(index)) was enrolled already") }
                let file = directory.appendingPathComponent("\(Self.bridgeName(index)).token").path
                try writePrivateFile(file, "\(token.text)\n")
                files.append(file)
            }
            return files
        }
    }

    /// Writes `text` to a new file only this user may read (a password, a token).
    private func writePrivateFile(_ path: String, _ text: String) throws {
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw Failure(description: "cannot write \(path)") }
    }
}
