import BridgeCore
import CarePlan
import Foundation
import GRDB
import Testing

@testable import CareStore

/// The lookups by sample series (`"v16-series-indexes"`): a new device's series, and a device's newest reading
/// for a patient (the care app's Devices page), read through an index instead of a scan.
@Suite struct SeriesIndexTests {
    static let morning = StoreFixture.berlinTime(2026, 11, 20, 7)
    static let strap = "AA:BB:CC:00:00:01"

    static func heartRate(_ index: Int, device: String = strap) -> QuantitySample {
        QuantitySample(
            type: .heartRate,
            value: 60 + Double(index % 30),
            unit: .perMinute,
            start: morning.addingTimeInterval(Double(index)),
            source: SampleSource(
                kind: .device,
                decoder: "heart-rate-measurement",
                device: DeviceIdentity(address: device)
            ),
            receivedAt: morning.addingTimeInterval(Double(index)),
            rawPayload: [0x00, UInt8(index & 0xFF), UInt8(index >> 8)]
        )
    }

    @Test func theSeriesLookupAndADevicesNewestReadingReadThroughAnIndex() async throws {
        let fixture = try StoreFixture()
        let plans = try await fixture.store.read { db -> [[String]] in
            let series = try QueryPlan.details(
                db,
                sql: SampleInserter.seriesLookupSQL,
                arguments: ["/min", "/min", "device", nil, "x", 1, 0, nil]
            )
            let newest = try QueryPlan.details(
                db,
                sql: "SELECT \(SampleRowReader.columns) FROM \(SampleTable.from) WHERE "
                    + CareStore.newestOfSeriesCondition(known: [1, 2, 3]) + " ORDER BY r.start DESC LIMIT 1",
                arguments: [1, 1, 0]
            )
            return [series, newest]
        }
        #expect(plans[0].contains { $0.contains("USING INDEX sampleSeries_on_deviceID (deviceID=?)") }, "\(plans[0])")
        #expect(
            plans[1].contains { $0.contains("USING INDEX sampleRow_on_series (series=? AND route=? AND start>?)") },
            "\(plans[1])"
        )
        for plan in plans {
            #expect(!plan.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    @Test func theDevicesPageFindsEachPatientsNewestReadingFromAStrapTheyShareInTurn() async throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        for id in ["alice", "bob"] { try await store.savePatient(Patient(id: id, name: id.capitalized)) }
        try await store.assignDevice(Self.strap, to: "alice")
        try await store.recordSamples((0..<300).map { Self.heartRate($0) })
        try await store.assignDevice(Self.strap, to: "bob")
        let bobs = (300..<1_000).map { Self.heartRate($0) }
        try await store.recordSamples(bobs)
        // Bob's newest is deleted: his page shows the one before it.
        #expect(try await store.deleteSample(id: bobs[bobs.count - 1].id))

        let alice = try await store.devices(of: "alice", since: Self.morning)
        #expect(alice.count == 1)
        #expect(alice.first?.lastReading?.sample.start == Self.morning.addingTimeInterval(299))
        #expect(alice.first?.lastReading?.patientID == "alice")
        let bob = try await store.devices(of: "bob", since: Self.morning)
        #expect(bob.first?.lastReading?.sample.start == Self.morning.addingTimeInterval(998))
        #expect(bob.first?.lastReading?.patientID == "bob")
        // All of Alice's readings are before this `since`, and the strap is Bob's now: she has no device.
        let later = try await store.devices(of: "alice", since: Self.morning.addingTimeInterval(300))
        #expect(later.isEmpty)
    }
}
