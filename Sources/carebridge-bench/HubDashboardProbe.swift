import CareHub
import CareStore
import Foundation
import Logging
import PostgresNIO

/// After a fleet's day: how long the care team's overview queries take on what the hub now holds, and whether it
/// holds every reading exactly once, in its bridge's order, for its bridge's patient, on the day it was taken.
struct HubDashboardProbe: Sendable {
    struct Findings: Sendable {
        var statusMilliseconds: Double
        var latestMilliseconds: Double
        var latestRows: Int
        var problems: [String]
    }

    /// The start of the overview's week: seven days before the fleet's day (2026-11-13 00:00 in Berlin).
    static let since = Date(timeIntervalSince1970: 1_794_524_400)

    let store: HubStore
    let logger: Logger
    /// Runs of each query; the median is reported.
    var runs = 5

    /// Times both queries and checks the rows.
    /// - Parameter expected: readings each bridge sent, by bridge name.
    func measure(expected: [String: Int]) async throws -> Findings {
        let clock = ContinuousClock()
        var status: [Double] = []
        var latest: [Double] = []
        var latestRows = 0
        for _ in 0..<runs {
            status.append(seconds(try await clock.measure { _ = try await store.status() }))
            latest.append(
                seconds(
                    try await clock.measure {
                        // The care team's overview as `/overview` reads it: every patient's newest readings.
                        let rows = try await store.overviewRows(patients: nil, since: Self.since)
                        latestRows = CareTeamOverview(rows: rows).entries.reduce(0) { $0 + $1.latest.count }
                    }
                )
            )
        }
        return Findings(
            statusMilliseconds: LatencyDistribution(status).median * 1000,
            latestMilliseconds: LatencyDistribution(latest).median * 1000,
            latestRows: latestRows,
            problems: try await check(expected: expected)
        )
    }

    /// What is wrong with the rows the hub holds (empty: nothing).
    func check(expected: [String: Int]) async throws -> [String] {
        var problems: [String] = []
        var held: [String: Int] = [:]
        let counts = try await store.client.query(
            """
            SELECT b.name, count(s.id) FROM hub_bridge b LEFT JOIN hub_sample s ON s.bridge_id = b.id
            GROUP BY b.name
            """,
            logger: logger
        )
        for try await (name, count) in counts.decode((String, Int64).self) { held[name] = Int(count) }
        let wrong = expected.filter { held[$0.key] != $0.value }.keys.sorted()
        if !wrong.isEmpty {
            problems.append(
                "\(wrong.count) bridges hold another count than they sent (first: \(wrong[0]) holds "
                    + "\(held[wrong[0]] ?? 0) of \(expected[wrong[0]]!))"
            )
        }
        let checks: [(String, PostgresQuery)] = [
            (
                "readings arrived out of their bridge's order",
                """
                SELECT count(*) FROM (SELECT bridge_sequence < lag(bridge_sequence)
                    OVER (PARTITION BY bridge_id ORDER BY arrival) AS backwards FROM hub_sample) x WHERE backwards
                """
            ),
            (
                "readings are filed under a patient their bridge is not enrolled for",
                """
                SELECT count(*) FROM hub_sample s WHERE NOT EXISTS (SELECT 1 FROM hub_enrolment e
                    WHERE e.bridge_id = s.bridge_id AND e.patient_id = s.patient_id)
                """
            ),
            (
                "readings are on another day than \(HubBenchmarkRun.dayText)",
                "SELECT count(*) FROM hub_sample WHERE left(body->>'start', 10) <> \(HubBenchmarkRun.dayText)"
            ),
        ]
        for (problem, query) in checks {
            var count: Int64 = 0
            for try await value in try await store.client.query(query, logger: logger).decode(Int64.self) {
                count = value
            }
            if count > 0 { problems.append("\(count) \(problem)") }
        }
        return problems
    }
}
