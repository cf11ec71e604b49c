import BridgeCore
import CareHub
import CareStore
import Foundation
import TestSupport
import Testing

/// A patient's record over both engines (one suite, two backends): what a bridge writes into its SQLite store
/// and what the hub's PostgreSQL holds once the bridge's hub channel sent it give the same record. Each test runs
/// once per engine and states what both must answer.
@Suite(.serialized) struct CareRecordTests {
    typealias Engine = CareTeamOverviewTests.Engine

    /// The bridge, and the store that answers: its own, or the hub after the bridge sent what it queued.
    struct Session: Sendable {
        let bridge: CareRecordBridge
        let hub: (store: HubStore, bridge: HubBridge)?

        /// Ann's record on `days`, from the engine (the hub first gets what waits in the bridge's outboxes;
        /// `repeated`: every batch twice, every message twice in it).
        func record(_ days: ClosedRange<String>, repeated: Bool = false) async throws -> CareRecordRows {
            guard let hub else {
                return try await bridge.store.recordRows(patient: CareRecordBridge.patient, days: days)
            }
            try await bridge.send(to: hub.store, as: hub.bridge, repeated: repeated)
            return try await hub.store.recordRows(patient: CareRecordBridge.patient, days: days)
        }
    }

    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("carebridge-record-")
    }

    func withSession(_ engine: Engine, _ body: @Sendable (Session) async throws -> Void) async throws {
        let bridge = try await CareRecordBridge(scratch: scratch)
        switch engine {
        case .sqlite:
            try await body(Session(bridge: bridge, hub: nil))
        case .postgresql:
            try await HubFixture.withStore(scratch: scratch) { hub in
                try await body(Session(bridge: bridge, hub: (hub, try await bridge.enrol(on: hub))))
            }
        }
    }

    static func ids(_ readings: [CareRecordRows.Reading]) -> [String] { readings.map(\.reading.sampleID) }
    static func id(_ sample: QuantitySample) -> String { sample.id.uuidString.lowercased() }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aReadingStoredTwiceAndSentTwiceIsInTheRecordOnce(engine: Engine) async throws {
        try await withSession(engine) { session in
            let sample = try await session.bridge.record(.bodyMass, 71.0, "kg", at: "2026-11-26T08:00")
            let again = try await session.bridge.store.scoped(to: "ann").recordSample(sample)
            #expect(again.duplicates == 1 && again.inserted == 0)
            let days = "2026-11-20"..."2026-11-27"
            let rows = try await session.record(days, repeated: true)
            #expect(Self.ids(rows.readings) == [Self.id(sample)])
            #expect(rows.outcomes.map(\.values) == [[71.0]])
            let later = try await session.record(days, repeated: true)
            #expect(Self.ids(later.readings) == [Self.id(sample)] && later.outcomes.count == 1)
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aReadingLandsOnTheDayItWasMeasuredWhereThePatientLivesNeverShifted(engine: Engine) async throws {
        try await withSession(engine) { session in
            // 23:30 and 00:00 in Berlin are 22:30 and 23:00 UTC the day before: read in UTC, both would be the 26th.
            let late = try await session.bridge.record(.bodyMass, 70.1, "kg", at: "2026-11-26T23:30")
            let midnight = try await session.bridge.record(.bodyMass, 70.2, "kg", at: "2026-11-27T00:00")
            let early = try await session.bridge.record(.bodyMass, 70.3, "kg", at: "2026-11-27T00:30")
            let both = try await session.record("2026-11-26"..."2026-11-27")
            #expect(both.readings.map(\.day) == ["2026-11-26", "2026-11-27", "2026-11-27"])
            #expect(Self.ids(both.readings) == [late, midnight, early].map(Self.id))
            #expect(
                both.outcomes.map { "\($0.day) \($0.values)" } == [
                    "2026-11-26 [Optional(70.1)]", "2026-11-27 [Optional(70.2)]",
                ]
            )
            let friday = try await session.record("2026-11-27"..."2026-11-27")
            #expect(Self.ids(friday.readings) == [midnight, early].map(Self.id))
            #expect(friday.outcomes.map(\.day) == ["2026-11-27"])
            let thursday = try await session.record("2026-11-26"..."2026-11-26")
            #expect(Self.ids(thursday.readings) == [Self.id(late)])
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func anOutcomeBelongsToTheTaskVersionInForceOnItsDay(engine: Engine) async throws {
        try await withSession(engine) { session in
            try await session.bridge.applyPlan(
                title: "Weigh yourself, shoes off",
                at: CareRecordBridge.now.addingTimeInterval(-3 * 86_400),
                effective: "2026-11-24T00:00:00"
            )
            let versions = try await session.bridge.store.scoped(to: "ann").taskVersions(id: "weigh")
                .sorted { $0.versionNumber < $1.versionNumber }
            try #require(versions.count == 2)
            // Recorded after the new version came in, for a day before it: the old version's event.
            try await session.bridge.record(.bodyMass, 71.0, "kg", at: "2026-11-22T08:00")
            try await session.bridge.record(.bodyMass, 71.5, "kg", at: "2026-11-26T08:00")
            let rows = try await session.record("2026-11-20"..."2026-11-27")
            #expect(
                rows.outcomes.map { "\($0.day) \($0.taskVersion)" } == [
                    "2026-11-22 \(versions[0].version.uuidString.lowercased())",
                    "2026-11-26 \(versions[1].version.uuidString.lowercased())",
                ]
            )
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func anAlertIsWhatItsNewestStateSays(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            let now = CareRecordBridge.now
            let days = "2026-11-20"..."2026-11-27"
            func open() async throws -> [String] {
                let rows = try await session.record(days)
                let overview = CareTeamOverview(
                    rows: CareTeamOverviewRows(
                        patients: [.init(id: "ann", name: "Ann")],
                        readings: [],
                        alerts: rows.alerts
                    )
                )
                return overview.entries.first?.openAlerts.map(\.message).sorted() ?? []
            }
            try await bridge.raise(
                subjects: [("a", now.addingTimeInterval(-7200)), ("b", now.addingTimeInterval(-3600))],
                now: now
            )
            #expect(try await open() == ["ann weighs more than 70 kg (a)", "ann weighs more than 70 kg (b)"])
            let a = try #require(try await bridge.store.alerts().first { $0.trip.subject == "a" })
            _ = try await bridge.store.acknowledgeAlert(id: a.id, by: "nurse", at: now)
            #expect(try await open() == ["ann weighs more than 70 kg (b)"])
            // b's facts are gone: withdrawn; then they trip again on a later reading.
            try await bridge.raise(subjects: [("a", now.addingTimeInterval(-7200))], now: now.addingTimeInterval(60))
            #expect(try await open() == [])
            try await bridge.raise(
                subjects: [("a", now.addingTimeInterval(-7200)), ("b", now.addingTimeInterval(120))],
                now: now.addingTimeInterval(180)
            )
            #expect(try await open() == ["ann weighs more than 70 kg (b)"])
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aReadingDeletedOrCorrectedAfterItWentUpLeavesTheRecordAndItsOutcome(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            let days = "2026-11-20"..."2026-11-27"
            let kept = try await bridge.record(.bodyMass, 71.0, "kg", at: "2026-11-25T08:00")
            let typo = try await bridge.record(.bodyMass, 17.2, "kg", at: "2026-11-26T08:00")
            let parcel = try await bridge.record(.bodyMass, 95.0, "kg", at: "2026-11-27T08:00", source: .device)
            #expect(Self.ids(try await session.record(days).readings) == [kept, typo, parcel].map(Self.id))

            try await bridge.store.deleteSample(
                id: parcel.id,
                at: CareRecordBridge.now,
                reason: "a parcel on the scale"
            )
            let corrected = QuantitySample(
                type: .bodyMass,
                value: 71.2,
                unit: HealthUnit(rawValue: "kg"),
                start: typo.start,
                source: SampleSource(kind: .manual)
            )
            try await bridge.store.replaceManualSample(id: typo.id, with: corrected, recordedAt: CareRecordBridge.now)
            // Deleted before it went up: nothing to retract, nothing shows.
            let never = try await bridge.record(.bodyMass, 99.0, "kg", at: "2026-11-24T08:00")
            try await bridge.store.deleteSample(id: never.id, at: CareRecordBridge.now, reason: "someone else")

            let rows = try await session.record(days)
            #expect(Self.ids(rows.readings) == [kept, corrected].map(Self.id))
            #expect(
                rows.outcomes.map { "\($0.day) \($0.values)" } == [
                    "2026-11-25 [Optional(71.0)]", "2026-11-26 [Optional(71.2)]",
                ]
            )
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aQuarantinedReadingStaysApartUntilReleasedAndARejectedOneNeverShows(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            let days = "2026-11-20"..."2026-11-27"
            let kept = try await bridge.record(.bodyMass, 71.0, "kg", at: "2026-11-25T08:00", source: .device)
            let parcel = try await bridge.record(
                .bodyMass,
                250,
                "kg",
                at: "2026-11-26T08:00",
                source: .device,
                quarantine: "250 kg is not plausible"
            )
            let toddler = try await bridge.record(
                .bodyMass,
                12,
                "kg",
                at: "2026-11-27T00:30",
                source: .device,
                quarantine: "12 kg is not plausible"
            )
            let held = try await session.record(days)
            #expect(Self.ids(held.readings) == [Self.id(kept)])
            #expect(Self.ids(held.quarantined) == [parcel, toddler].map(Self.id))
            #expect(held.quarantined.map(\.day) == ["2026-11-26", "2026-11-27"])
            #expect(held.quarantined.map(\.quarantine) == ["250 kg is not plausible", "12 kg is not plausible"])
            #expect(held.outcomes.map(\.day) == ["2026-11-25"], "a quarantined reading completes nothing")

            _ = try #require(try await bridge.store.releaseSample(id: parcel.id, reason: "a new scale", by: "nurse"))
            try await bridge.store.deleteSample(id: toddler.id, reason: "her grandson", by: "nurse")
            let decided = try await session.record(days)
            #expect(Self.ids(decided.readings) == [kept, parcel].map(Self.id))
            #expect(decided.readings.allSatisfy { $0.quarantine == nil })
            #expect(decided.quarantined.isEmpty)
            #expect(
                decided.outcomes.map { "\($0.day) \($0.values)" } == [
                    "2026-11-25 [Optional(71.0)]", "2026-11-26 [Optional(250.0)]",
                ]
            )
        }
    }

    @Test(
        .enabled(if: PostgresServer.testsEnabled, "PostgreSQL is not installed (apt-get install -y postgresql)"),
        arguments: Engine.allCases
    )
    func aFlaggedReadingAndOnesBeyondTheMetersRangeKeepTheirMarks(engine: Engine) async throws {
        try await withSession(engine) { session in
            let bridge = session.bridge
            let moved = try await bridge.record(
                .bloodPressureSystolic,
                128,
                "mm[Hg]",
                at: "2026-11-27T07:00",
                source: .device,
                metadata: ["measurementStatus": "body movement detected, irregular pulse detected"]
            )
            let low = try await bridge.record(
                .bloodGlucose,
                1.1,
                "mmol/L",
                at: "2026-11-27T07:10",
                source: .device,
                comparator: .lessThan
            )
            let high = try await bridge.record(
                .bloodGlucose,
                33.3,
                "mmol/L",
                at: "2026-11-27T07:20",
                source: .device,
                comparator: .greaterThan
            )
            let rows = try await session.record("2026-11-27"..."2026-11-27")
            #expect(Self.ids(rows.readings) == [moved, low, high].map(Self.id))
            #expect(
                rows.readings.map(\.reading.flags) == [["body movement detected", "irregular pulse detected"], [], []]
            )
            #expect(rows.readings.map(\.reading.comparator) == [nil, "<", ">"])
            #expect(rows.readings.map(\.reading.value) == [128, 1.1, 33.3])
        }
    }
}
