import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import SampleExport
import Testing

/// Samples as the decoders make them from real payloads, exported to FHIR.
@Suite struct DecodedSamplesExportTests {
    let cuff = DeviceIdentity(address: "00:09:1F:00:00:01", name: "UA-651", manufacturer: "A&D", model: "UA-651BLE")

    func samples(_ payload: [UInt8], _ decoder: any (GATTPayload & SampleProducing).Type) throws -> [QuantitySample] {
        let context = SampleContext(
            receivedAt: Fixtures.morning,
            timeZone: Fixtures.berlin,
            source: .device(decoder, identity: cuff),
            payload: payload
        )
        return try decoder.decode(payload).samples(in: context).map { QuantitySample($0) }
    }

    @Test func bloodPressureMeasurementBecomesOnePanelPlusMeanAndPulse() throws {
        let first: [UInt8] = [0x04, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, 0x40, 0x00]  // 120/80, MAP 93, 64 bpm
        let second: [UInt8] = [0x04, 0x82, 0x00, 0x55, 0x00, 0x64, 0x00, 0x48, 0x00]  // 130/85, MAP 100, 72 bpm
        let records = try
            (samples(first, BloodPressureMeasurement.self) + samples(second, BloodPressureMeasurement.self))
            .map { ExportRecord(sample: $0) }
        let (text, summary) = try Fixtures.fhir(records)
        let observations = try Parsed.resources(text, type: "Observation")
        #expect(
            observations.map(Parsed.codes) == [
                ["85354-9"], ["8478-0"], ["8867-4"], ["85354-9"], ["8478-0"], ["8867-4"],
            ]
        )
        let panels = observations.filter { Parsed.codes($0) == ["85354-9"] }
        let values = panels.map { panel in
            (panel["component"] as? [[String: Any]] ?? []).map {
                (($0["valueQuantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue
            }
        }
        #expect(values == [[120, 80], [130, 85]])
        #expect(try Parsed.readingDevices(text).count == 1)
        #expect(summary.exported == 8)
    }

    @Test func weightMeasurementHeightIsWrittenInCentimetres() throws {
        // Weight Measurement with time stamp, user, BMI and height (as in `carebridge decode`'s example).
        let payload: [UInt8] = [
            0x0E, 0xA4, 0x38, 0xE8, 0x07, 0x03, 0x0F, 0x07, 0x1E, 0x00, 0x05, 0x18, 0x01, 0xD0, 0x06,
        ]
        let decoded = try samples(payload, WeightMeasurement.self)
        let height = try #require(decoded.first { $0.type == .height })
        let (text, _) = try Fixtures.fhir(decoded.map { ExportRecord(sample: $0) })
        let observation = try #require(
            try Parsed.resources(text, type: "Observation").first { Parsed.codes($0) == ["8302-2"] }
        )
        let quantity = try #require(observation["valueQuantity"] as? [String: Any])
        #expect(quantity["code"] as? String == "cm")
        let centimetres = try #require((quantity["value"] as? NSNumber)?.doubleValue)
        #expect(abs(centimetres - height.value * 100) < 1e-9)
        #expect(
            // (The coincident time stamp has an MDC code only.)
            Set(try Parsed.resources(text, type: "Observation").map(Parsed.codes).filter { !$0.isEmpty }) == [
                ["29463-7"], ["39156-5"], ["8302-2"],
            ]
        )
    }
}
