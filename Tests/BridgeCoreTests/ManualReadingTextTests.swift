import BridgeCore
import Foundation
import Testing

/// `carebridge ingest` reads a reading the way people write it.
@Suite struct ManualReadingTextTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func read(_ type: String, _ words: String) throws -> [ManualReadingText.Reading] {
        try ManualReadingText.parse(type: type, words: words.split(separator: " ").map(String.init))
    }

    @Test(arguments: [
        ("bodyMass", "72.5kg", 72.5, "kg"), ("bodyMass", "72,5 kg", 72.5, "kg"), ("bodyMass", "160 kgs", 160, "kg"),
        ("bodyTemperature", "98.6°F", 98.6, "°F"), ("bodyTemperature", "98.6 ºF", 98.6, "°F"),
        ("bodyTemperature", "98.6ºF", 98.6, "°F"), ("bodyTemperature", "37.2℃", 37.2, "°C"),
        ("bodyTemperature", "37.2 ℃", 37.2, "°C"), ("heartRate", "72 1/min", 72, "1/min"),
        ("bloodGlucose", "5.8mmol/L", 5.8, "mmol/L"), ("bodyMass", "11 st", 154, "lb"),
        ("bodyMass", "11 st 4 lb", 158, "lb"), ("bodyMass", "11st 4lb", 158, "lb"), ("bodyMass", "11st4lb", 158, "lb"),
        ("body-mass", "11 stone 4 lbs", 158, "lb"),
    ])
    func readsTheWaysPeopleWriteOneValue(type: String, words: String, value: Double, unit: String) throws {
        let readings = try read(type, words)
        #expect(readings.count == 1)
        #expect(readings.first?.value == value && readings.first?.unit == unit, "\(words): \(readings)")
    }

    @Test(arguments: ["bloodPressure", "blood-pressure", "bp", "bloodPressureSystolic"])
    func readsABloodPressureAsOneReadingOfTwoValues(type: String) throws {
        for words in ["120/80 mmHg", "120/80mmHg", "120 / 80 mmHg"] {
            let readings = try read(type, words)
            #expect(
                readings == [
                    .init(type: .bloodPressureSystolic, value: 120, unit: "mmHg"),
                    .init(type: .bloodPressureDiastolic, value: 80, unit: "mmHg"),
                ],
                "\(words)"
            )
        }
        let samples = try ManualReadingText.samples(type: type, words: ["16/10.7", "kPa"], at: now, receivedAt: now)
        #expect(samples.map(\.type) == [.bloodPressureSystolic, .bloodPressureDiastolic])
        #expect(samples.allSatisfy { $0.start == now && $0.unit == .millimetreOfMercury })
        #expect(samples.map(\.transmittedValue) == [16, 10.7])
    }

    @Test func stoneIsFourteenPoundsAndConvertsToKilograms() throws {
        let sample = try #require(
            try ManualReadingText.samples(type: "bodyMass", words: ["11", "st", "4", "lb"], at: now, receivedAt: now)
                .first
        )
        #expect(abs(sample.value - 158 * 0.45359237) < 1e-9)
        #expect(sample.transmittedValue == 158 && sample.transmittedUnit == .pound)
    }

    @Test(arguments: [
        ("heartRate", "-3 bpm", "cannot be negative"), ("bodyTemperature", "-3 C", "cannot be negative"),
        ("bodyMass", "-72kg", "cannot be negative"), ("bp", "80/120 mmHg", "must be higher"),
        ("bloodPressure", "120 mmHg", "120/80 mmHg"), ("heartRate", "120/80 mmHg", "only blood pressure"),
        ("heartRate", "72", "e.g. 72 bpm"), ("heartRate", "72 bmp", "use bpm, e.g. 72 bpm"),
        ("bodyMass", "72 mmHg", "use kg, lb"), ("bodyTemperature", "37 kg", "37.2 °C or 98.6 °F"),
        ("heartRate", "7O bpm", "not a decimal number"), ("heartRate", "0x46 bpm", "not a decimal number"),
        ("bodyMass", "11 st 15 lb", "11 st 4 lb"), ("heartRate", "11 st", "use bpm"),
        ("bodyMass", "72 kg kg", "72.4 kg"), ("bloodPressure", "1/0 mmHg", "a blood pressure of 0 is no reading"),
        ("bloodPressure", "0/0 mmHg", "a blood pressure of 0 is no reading"),
    ])
    func refusesWithAMessageSayingWhatWouldHaveWorked(type: String, words: String, expected: String) throws {
        let error = try #require(throws: ManualReading.Failure.self) {
            try ManualReadingText.samples(
                type: type,
                words: words.split(separator: " ").map(String.init),
                at: now,
                receivedAt: now
            )
        }
        #expect(error.description.contains(expected), "\(words): \(error.description)")
    }
}
