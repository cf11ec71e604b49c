public import BridgeFoundation
public import Foundation
import GATTDecoding

extension QuantitySample {
    /// The sample as JSON, times shown in `zone`.
    public func json(in zone: TimeZone) -> JSONValue {
        var object: JSONObject = [
            "id": .string(id.uuidString.lowercased()),
            "type": .string(type.rawValue),
            "value": value.isFinite ? .double(value) : .null,
            "unit": .string(unit.rawValue),
            "start": .string(Timestamp.format(start, in: zone)),
            "end": .string(Timestamp.format(end, in: zone)),
            "transmittedValue": transmittedValue.isFinite ? .double(transmittedValue) : .null,
            "transmittedUnit": .string(transmittedUnit.rawValue),
        ]
        if let comparator {
            object["comparator"] = .string(comparator.rawValue)
            object["interpretation"] = .string(comparator.label)
        }
        let flags = SampleScreening.flags(of: self)
        if !flags.isEmpty { object["statusFlags"] = .array(flags.map(JSONValue.string)) }
        if let quarantineReason { object["quarantine"] = .string(quarantineReason) }
        var source: JSONObject = ["kind": .string(self.source.kind.rawValue)]
        if let characteristic = self.source.characteristic {
            source["characteristic"] = .string(characteristic.description)
        }
        if let decoder = self.source.decoder { source["decoder"] = .string(decoder) }
        if let device = self.source.device {
            var identity = JSONObject()
            for (key, value) in [
                ("address", device.address), ("name", device.name), ("manufacturer", device.manufacturer),
                ("model", device.model), ("serial", device.serial), ("firmware", device.firmware),
                ("hardware", device.hardware), ("software", device.software), ("profile", device.profile),
            ] {
                if let value { identity[key] = .string(value) }
            }
            source["device"] = .object(identity)
        }
        object["source"] = .object(source)
        if let deviceTime { object["deviceTime"] = .string(deviceTime.description) }
        object["receivedAt"] = .string(Timestamp.format(receivedAt, in: zone))
        if let clockOffset { object["clockOffset"] = .double(clockOffset) }
        if !rawPayload.isEmpty { object["payload"] = .string(Hex.string(rawPayload)) }
        if !metadata.isEmpty {
            var meta = JSONObject()
            for key in metadata.keys.sorted() { meta[key] = .string(metadata[key]!) }
            object["metadata"] = .object(meta)
        }
        return .object(object)
    }
}
