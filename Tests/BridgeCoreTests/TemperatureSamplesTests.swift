import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Testing

@Suite struct TemperatureSamplesTests {
    private let received = Date(timeIntervalSince1970: 1_700_000_000)

    private func context(_ payload: [UInt8], _ type: any GATTPayload.Type) -> SampleContext {
        SampleContext(receivedAt: received, timeZone: .gmt, source: .device(type), payload: payload)
    }

    @Test func referenceExampleIsOneBodyTemperatureWithItsSite() throws {
        let payload: [UInt8] = [0x04, 0x6D, 0x01, 0x00, 0xFF, 0x06]  // 36.5 °C, mouth
        let samples = try TemperatureMeasurement.decode(payload).samples(
            in: context(payload, TemperatureMeasurement.self)
        )
        let sample = try #require(samples.first)
        #expect(samples.count == 1)
        #expect(sample.type == .bodyTemperature)
        #expect(sample.value == 36.5)
        #expect(sample.unit == .celsius)
        #expect(sample.metadata == ["temperatureType": "mouth", "resolution.bodyTemperature": "1e-1"])
        #expect(sample.start == received)
        #expect(sample.source.characteristic == BluetoothUUID(0x2A1C))
    }

    @Test func fahrenheitIsConvertedToCelsiusAndTheDeviceTimeUsed() throws {
        let payload: [UInt8] = [
            0x03,  // flags: °F, time stamp
            0xDA, 0x03, 0x00, 0xFF,  // 986 × 10⁻¹ = 98.6 °F
            0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00,  // 2024-03-15 07:30:00
        ]
        let sample = try #require(
            try TemperatureMeasurement.decode(payload).samples(in: context(payload, TemperatureMeasurement.self)).first
        )
        let celsius: Double = (98.6 - 32) * 5 / 9  // 37.0 up to the nearest double
        #expect(sample.value == celsius)
        #expect(sample.unit == .celsius)
        #expect(sample.transmittedValue == 98.6)
        #expect(sample.transmittedUnit == .fahrenheit)
        #expect(Timestamp.format(sample.start, in: .gmt) == "2024-03-15T07:30:00+00:00")
        #expect(sample.deviceTime == DateTime(year: 2024, month: 3, day: 15, hours: 7, minutes: 30, seconds: 0))
        #expect(sample.metadata["temperatureType"] == nil)
    }

    /// NaN, NRes and reserved; ±INF are LO/HI readings (`OutOfRangeSamplesTests`).
    @Test(arguments: [[UInt8(0xFF), 0xFF, 0x7F, 0x00], [0x00, 0x00, 0x80, 0x00], [0x01, 0x00, 0x80, 0x00]])
    func specialValuesGiveNoSample(code: [UInt8]) throws {
        let payload = [0x00] + code
        let value = try TemperatureMeasurement.decode(payload)
        #expect(value.temperature.special != nil)
        #expect(value.samples(in: context(payload, TemperatureMeasurement.self)).isEmpty)
    }

    @Test func intermediateTemperatureIsNeverASample() throws {
        let payload: [UInt8] = [0x04, 0x6D, 0x01, 0x00, 0xFF, 0x06]
        let value = try IntermediateTemperature.decode(payload)
        #expect(value.temperature.doubleValue == 36.5)
        #expect(value.samples(in: context(payload, IntermediateTemperature.self)).isEmpty)
    }
}
