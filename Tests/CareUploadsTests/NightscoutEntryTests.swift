import BridgeCore
import BridgeFoundation
import CareStore
import CareUploads
import Foundation
import Testing

/// How a stored glucose reading becomes a Nightscout `mbg` entry: units, LO/HI, context, identity.
@Suite struct NightscoutEntryTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let start = Date(timeIntervalSince1970: 1_795_000_000.123)

    func stored(
        _ value: Double,
        _ unit: HealthUnit,
        type: QuantityType = .bloodGlucose,
        comparator: ValueComparator? = nil,
        metadata: [String: String] = [:]
    ) -> StoredSample {
        var sample = QuantitySample(
            type: type,
            value: value,
            unit: unit,
            start: Self.start,
            source: SampleSource(kind: .manual),
            metadata: metadata
        )
        sample.comparator = comparator
        return StoredSample(sample: sample, recordedAt: Self.start)
    }

    @Test(arguments: [
        (5.3, HealthUnit.millimolePerLitre, 95),  // 95.48268
        (5.55, .millimolePerLitre, 100),  // 99.98658
        (2.5, .milligramPerDecilitre, 3),  // a half goes away from zero
        (95, .milligramPerDecilitre, 95),
        (0.00095, .kilogramPerLitre, 95),
    ])
    func mmolPerLitreBecomesWholeMilligramsPerDecilitreRoundedHalfAwayFromZero(
        value: Double,
        unit: HealthUnit,
        expected: Int
    ) {
        #expect(NightscoutEntry.milligramsPerDecilitre(value, unit) == expected)
    }

    @Test func aTypedReadingCarriesItsIdTimeAndMealContext() throws {
        let sample = stored(5.3, .millimolePerLitre, metadata: ["mealName": "preprandial"])
        let entry = try #require(NightscoutEntry(sample, zone: Self.zone))
        #expect(entry.mbg == 95)
        #expect(entry.date == 1_795_000_000_123)
        #expect(entry.dateString.hasSuffix("+01:00") || entry.dateString.hasSuffix("+02:00"))
        #expect(entry.identifier == sample.id.uuidString.lowercased())
        #expect(entry.device == "CareBridge (typed)")
        #expect(entry.notes == "meal: preprandial")
        let json = entry.json.serialized()
        #expect(json.contains(#""type": "mbg""#) && json.contains(#""mbg": 95"#), "\(json)")
    }

    @Test func loAndHiKeepTheMeterLimitOrNightscoutsLowHighValuesAndAreMarked() throws {
        let low = try #require(
            NightscoutEntry(stored(-.infinity, .milligramPerDecilitre, comparator: .lessThan), zone: Self.zone)
        )
        #expect(low.mbg == NightscoutEntry.unboundedLow && low.comparator == .lessThan)
        #expect(low.notes == "LO (below the meter's range)")
        let high = try #require(
            NightscoutEntry(stored(600, .milligramPerDecilitre, comparator: .greaterThan), zone: Self.zone)
        )
        #expect(high.mbg == 600 && high.notes == "HI (above 600 mg/dL)")
        #expect(high.json.serialized().contains(#""comparator": ">""#))
    }

    @Test func otherQuantityTypesAreNotEntries() {
        #expect(NightscoutEntry(stored(72.5, .kilogram, type: .bodyMass), zone: Self.zone) == nil)
    }

    @Test func theApiSecretHeaderIsTheSecretsSHA1Hex() {
        // sha1("test-secret-123")
        #expect(NightscoutClient.digest("test-secret-123") == "b2b16d1e009a732029babed97f420237cedd72e2")
    }
}
