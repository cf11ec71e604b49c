import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import SampleExport

/// Samples built the way the decoders build them, for export tests.
enum Fixtures {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// 2026-11-20T07:30:00+01:00
    static let morning = Date(timeIntervalSince1970: 1_795_156_200)

    static let cuff = DeviceIdentity(
        address: "A4:C1:38:00:00:01",
        name: "BPM Connect",
        manufacturer: "A&D \"Medical\"",
        model: "UA-651BLE",
        serial: "SN-0001",
        firmware: "1.2.3",
        hardware: "rev B"
    )
    static let scale = DeviceIdentity(address: "A4:C1:38:00:00:02", name: "Scale", manufacturer: "Acme", model: "S1")

    static func device(_ identity: DeviceIdentity, uuid: UInt16 = 0x2A35) -> SampleSource {
        SampleSource(kind: .device, characteristic: BluetoothUUID(uuid), decoder: "test", device: identity)
    }

    static func sample(
        _ type: QuantityType,
        _ value: Double,
        unit: HealthUnit? = nil,
        transmitted: (Double, HealthUnit)? = nil,
        source: SampleSource = device(scale),
        at date: Date = morning,
        end: Date? = nil,
        payload: [UInt8] = [0x01, 0x02],
        index: Int = 0
    ) -> QuantitySample {
        QuantitySample(
            type: type,
            value: value,
            unit: unit ?? type.canonicalUnit,
            start: date,
            end: end,
            transmittedValue: transmitted?.0,
            transmittedUnit: transmitted?.1,
            source: source,
            receivedAt: date,
            rawPayload: source.kind == .manual ? [] : payload,
            index: index
        )
    }

    /// One reading of every type, as a cuff, scale, oximeter and thermometer would send them.
    static var everyType: [ExportRecord] {
        QuantityType.allCases.enumerated().map { offset, type in
            let value: Double =
                switch type {
                case .bodyMass: 72.35
                case .height: 1.13
                case .bodyTemperature: 36.6
                case .heartRate: 64
                case .bloodPressureSystolic: 121
                case .bloodPressureDiastolic: 79
                case .meanArterialPressure: 93
                case .oxygenSaturation: 97
                case .bodyFatPercentage: 21.4
                case .bloodGlucose: 95
                default: 12.5
                }
            let date = morning.addingTimeInterval(Double(offset) * 60)
            return ExportRecord(sample: sample(type, value, at: date, payload: [UInt8(offset)]))
        }
    }

    /// Collects what a writer emits, chunk by chunk.
    final class Collector {
        var chunks: [String] = []
        var text: String { chunks.joined() }
        var sink: ExportSink { { [self] chunk in chunks.append(chunk) } }
    }

    /// Writes `records` through a FHIR writer and returns the text and summary.
    static func fhir(
        _ records: [ExportRecord],
        options: FHIRBundleWriter.Options = FHIRBundleWriter.Options(timeZone: berlin)
    ) throws -> (text: String, summary: ExportSummary) {
        let collector = Collector()
        let writer = FHIRBundleWriter(options: options, sink: collector.sink)
        for record in records { try writer.write(record) }
        let summary = try writer.finish()
        return (collector.text, summary)
    }
}

/// Reads written JSON back with Foundation's parser (not ours).
enum Parsed {
    static func object(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let object = value as? [String: Any] else { throw ParseFailure(text: text) }
        return object
    }

    struct ParseFailure: Error {
        var text: String
    }

    /// The bundle's entries.
    static func entries(_ text: String) throws -> [[String: Any]] {
        try object(text)["entry"] as? [[String: Any]] ?? []
    }

    /// Resources of `type` among the bundle's entries.
    static func resources(_ text: String, type: String) throws -> [[String: Any]] {
        try entries(text).compactMap { $0["resource"] as? [String: Any] }.filter {
            $0["resourceType"] as? String == type
        }
    }

    /// The codes of `resource.code` other than its MDC codes (the vital-signs codes; ``mdcCodes(_:)`` the others).
    static func codes(_ resource: [String: Any]) -> [String] {
        let code = resource["code"] as? [String: Any]
        return (code?["coding"] as? [[String: Any]] ?? []).filter { $0["system"] as? String != PHDCoding.mdcSystem }
            .compactMap { $0["code"] as? String }
    }

    /// The MDC codes of `resource.code`.
    static func mdcCodes(_ resource: [String: Any]) -> [String] {
        let code = resource["code"] as? [String: Any]
        return (code?["coding"] as? [[String: Any]] ?? []).filter { $0["system"] as? String == PHDCoding.mdcSystem }
            .compactMap { $0["code"] as? String }
    }

    /// The Devices of the reading devices (PhdDevice), not the gateway.
    static func readingDevices(_ text: String) throws -> [[String: Any]] {
        try resources(text, type: "Device").filter {
            ((($0["meta"] as? [String: Any])?["profile"] as? [String]) ?? []).contains(PHDCoding.deviceProfile)
        }
    }
}
