import BridgeCore
import Foundation
import SampleExport
import Testing

@Suite struct DisplayQuantityTests {
    func sample(_ type: QuantityType, sent: Double, _ unit: HealthUnit) throws -> QuantitySample {
        let value = try #require(unit.convert(sent, to: type.canonicalUnit))
        return QuantitySample(
            type: type,
            value: value,
            unit: type.canonicalUnit,
            start: Date(timeIntervalSince1970: 1_800_000_000),
            transmittedValue: sent,
            transmittedUnit: unit,
            source: .manual
        )
    }

    @Test func valuesAreShownAtTheResolutionTheyWereSentIn() throws {
        #expect(DisplayQuantity.value(of: try sample(.bloodPressureSystolic, sent: 16, .kilopascal)) == "120 mmHg")
        #expect(DisplayQuantity.value(of: try sample(.bodyMass, sent: 160, .pound)) == "72.6 kg")
        #expect(DisplayQuantity.value(of: try sample(.bodyMass, sent: 160.2, .pound)) == "72.67 kg")
        #expect(DisplayQuantity.value(of: try sample(.bodyTemperature, sent: 98.6, .fahrenheit)) == "37 °C")
        #expect(DisplayQuantity.value(of: try sample(.bodyTemperature, sent: 36.55, .celsius)) == "36.55 °C")
        #expect(DisplayQuantity.value(of: try sample(.heartRate, sent: 72, .perMinute)) == "72 bpm")
        #expect(DisplayQuantity.value(of: try sample(.bloodGlucose, sent: 0.0058, .molePerLitre)) == "104 mg/dL")
    }

    @Test func whatWasSentIsShownExactly() throws {
        #expect(
            DisplayQuantity.transmitted(of: try sample(.bloodGlucose, sent: 0.0058, .molePerLitre)) == "0.0058 mol/L"
        )
        #expect(DisplayQuantity.transmitted(of: try sample(.bodyMass, sent: 160, .pound)) == "160 lb")
        #expect(DisplayQuantity.transmitted(of: try sample(.bodyTemperature, sent: 98.6, .fahrenheit)) == "98.6 °F")
        #expect(DisplayQuantity.fractionDigits(5.8e-05) == 6)
    }
}
