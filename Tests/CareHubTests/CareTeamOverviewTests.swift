import CareHub
import CareStore
import Foundation
import Logging
import TestSupport
import Testing

/// The care team's overview over both engines (one suite, two backends): the same ward written into a bridge's
/// SQLite store and sent to the hub's PostgreSQL gives the same overview (latest reading per type and its trend,
/// out-of-range readings, open alerts, urgent patients first).
@Suite(.serialized) struct CareTeamOverviewTests {
    enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgresql
        var testDescription: String { rawValue }
    }

    /// What a person sees of one patient, without the engine's own keys and names.
    struct Shown: Equatable, CustomStringConvertible {
        var patient: String
        var readings: [String]
        var alerts: [String]

        var description: String { "\(patient): \(readings) \(alerts)" }
    }

    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-overview-")
    }

    /// Runs `body` with the ward in the engine's store.
    func withSource(_ engine: Engine, _ body: @Sendable (any CareTeamOverviewSource) async throws -> Void) async throws
    {
        let ward = try await CareTeamWard(scratch: scratch)
        switch engine {
        case .sqlite:
            try await body(ward.store)
        case .postgresql:
            try await HubFixture.withStore(scratch: scratch) { hub in
                try await ward.send(to: hub)
                try await body(hub)
            }
        }
    }

    static func shown(_ overview: CareTeamOverview) -> [Shown] {
        overview.entries.map { entry in
            Shown(
                patient: entry.patient.id,
                readings: entry.latest.map { latest in
                    let reading = latest.reading
                    return
                        "\(reading.type) \(reading.value) \(reading.unit) at \(Int(reading.start.timeIntervalSince1970))"
                        + (latest.isOutOfRange ? " out of range" : "") + (latest.trend.map { ", \($0)" } ?? "")
                },
                alerts: entry.openAlerts.map(\.message)
            )
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func bothEnginesShowTheLatestReadingsAndOpenAlertsOfTheWeek(engine: Engine) async throws {
        try await withSource(engine) { source in
            let rows = try await source.overviewRows(
                patients: nil,
                since: CareTeamWard.now.addingTimeInterval(-7 * 86400)
            )
            let at = { (hours: Double) in Int(CareTeamWard.now.timeIntervalSince1970 - hours * 3600) }
            #expect(
                Self.shown(CareTeamOverview(rows: rows)) == [
                    Shown(
                        patient: "ann",
                        readings: [
                            "bodyMass 72.5 kg at \(at(1)), rising", "heartRate 250.0 /min at \(at(2)) out of range",
                        ],
                        alerts: ["ann weighs more than 70 kg (b)"]
                    ),
                    Shown(patient: "ben", readings: ["bodyMass 80.5 kg at \(at(3))"], alerts: []),
                    Shown(patient: "cleo", readings: ["bodyMass 64.2 kg at \(at(5))"], alerts: []),
                ]
            )
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func bothEnginesReadOnlyThePatientsAskedFor(engine: Engine) async throws {
        try await withSource(engine) { source in
            let rows = try await source.overviewRows(
                patients: ["ben"],
                since: CareTeamWard.now.addingTimeInterval(-7 * 86400)
            )
            #expect(rows.patients.map(\.id) == ["ben"])
            #expect(Set(rows.readings.map(\.patientID)) == ["ben"])
            #expect(Set(rows.alerts.map(\.patientID)).isSubset(of: ["ben"]))
            #expect(try await source.overviewRows(patients: [], since: .distantPast).patients.isEmpty)
        }
    }
}
