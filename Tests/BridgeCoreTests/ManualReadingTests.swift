import BridgeCore
import Foundation
import Testing

@Suite struct ManualReadingTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [
        "kg", "lb", "lbs", "°C", "C", "degC", "°F", "F", "degF", "bpm", "/min", "mmHg", "kPa", "%", "mg/dL", "mmol/L",
        "ms",
    ])
    func acceptsTheSpellingsPeopleType(unit: String) throws {
        #expect(HealthUnit(parsing: unit) != nil)
    }

    @Test func convertsToTheCanonicalUnitAndKeepsWhatWasTyped() throws {
        let sample = try ManualReading.sample(
            type: .bodyTemperature,
            value: 98.6,
            unit: "°F",
            at: now,
            note: "oral",
            receivedAt: now
        )
        #expect(abs(sample.value - (98.6 - 32) * 5 / 9) < 1e-9)
        #expect(sample.unit == .celsius && sample.transmittedUnit == .fahrenheit && sample.transmittedValue == 98.6)
        #expect(sample.source.kind == .manual && sample.metadata["note"] == "oral")
    }

    @Test(arguments: [
        (QuantityType.bodyTemperature, 24.9, "C"), (.bodyTemperature, 45.1, "C"), (.bodyTemperature, 120, "F"),
        (.bodyMass, 0.1, "kg"), (.bodyMass, 651, "kg"), (.bodyMass, 1500, "lb"),
        (.heartRate, 19, "bpm"), (.heartRate, 301, "/min"), (.oxygenSaturation, 101, "%"),
        (.bloodPressureSystolic, 500, "mmHg"),
    ])
    func refusesImplausibleValues(type: QuantityType, value: Double, unit: String) throws {
        let error = try #require(throws: ManualReading.Failure.self) {
            try ManualReading.sample(type: type, value: value, unit: unit, at: now, receivedAt: now)
        }
        guard case .implausible(let failedType, _, _, let range) = error else {
            Issue.record("expected implausible, got \(error)")
            return
        }
        #expect(failedType == type && range == ManualReading.plausibleRange(for: type))
        #expect(error.description.contains(type.title))
    }

    @Test func acceptsTheEdgesOfThePlausibleRanges() throws {
        for (type, value, unit) in [
            (QuantityType.bodyTemperature, 25.0, "C"), (.bodyTemperature, 45, "°C"), (.bodyMass, 0.5, "kg"),
            (.bodyMass, 650, "kg"), (.heartRate, 20, "bpm"), (.heartRate, 300, "bpm"),
        ] {
            #expect(
                try ManualReading.sample(type: type, value: value, unit: unit, at: now, receivedAt: now).value == value
            )
        }
    }

    @Test func refusesUnknownAndMismatchedUnitsAndTypes() throws {
        #expect(throws: ManualReading.Failure.unknownUnit("stone")) {
            try ManualReading.sample(type: .bodyMass, value: 11, unit: "stone", at: now, receivedAt: now)
        }
        #expect(throws: ManualReading.Failure.incompatibleUnit(.millimetreOfMercury, .bodyMass)) {
            try ManualReading.sample(type: .bodyMass, value: 70, unit: "mmHg", at: now, receivedAt: now)
        }
        #expect(throws: ManualReading.Failure.unknownType("weightiness")) { try ManualReading.parseType("weightiness") }
        #expect(try ManualReading.parseType("body-mass") == .bodyMass)
        #expect(try ManualReading.parseType("heartRate") == .heartRate)
    }
}
