import BridgeCore
import CareStore
import Foundation

extension ReadingsPage {
    /// A reading of a patient's record (``CareRecordSource``: a bridge's store, or the hub's copy of what the
    /// bridges sent) as a row of the readings table, by the same rules as the bridge's own Readings screen: the
    /// value with its LO/HI limit, the device's flags and the quarantine said beside it. A type or unit this
    /// version does not know still shows, with its raw names.
    static func row(_ reading: CareRecordRows.Reading, user: CareUser, shown: ShownTime) -> [String: Any] {
        let row = reading.reading
        guard let type = QuantityType(rawValue: row.type) else {
            return [
                "id": row.sampleID, "type": row.type, "when": shown.dateTime(row.start),
                "value": "\(String(format: "%g", row.value)) \(row.unit)", "notes": [String](),
                "statusClass": reading.quarantine != nil ? "quarantined" : "",
            ]
        }
        let sample = QuantitySample(
            type: type,
            value: row.value,
            unit: HealthUnit(rawValue: row.unit),
            start: row.start,
            source: SampleSource(kind: .device),
            metadata: row.flags.isEmpty ? [:] : [SampleScreening.statusKeys[0]: row.flags.joined(separator: ", ")],
            comparator: row.comparator.flatMap(ValueComparator.init(rawValue:)),
            quarantineReason: reading.quarantine,
            id: UUID(uuidString: row.sampleID)
        )
        var values = Self.row(
            StoredSample(sample: sample, recordedAt: row.start),
            reviews: [],
            user: user,
            shown: shown
        )
        // The record knows the reading, not its device or who typed it, and is decided on where it is held.
        values["source"] = nil
        values["canReview"] = nil
        return values
    }
}
