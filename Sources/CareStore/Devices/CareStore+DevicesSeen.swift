import BridgeCore
public import Foundation
import GRDB

extension CareStore {
    /// The devices of one patient: every device the registry files under them, and every device that brought
    /// them a reading since `since`, each with the patient's last reading from it, newest first (registered
    /// devices not heard from last). Another patient's readings from a shared device are never returned.
    ///
    /// Reads, per device and per type its series can hold, the newest row of that type from that device's
    /// series (the table's `(type, start)` key read backwards, stopping at the first of this patient's). A device
    /// that brought this patient nothing is read to `since`: measured in a debug build, another patient's day of
    /// 1 Hz heart rate (86,400 rows) takes 28 ms to rule out (8 ms to find the owner's newest), so a window of
    /// 90 such days costs seconds per strap. Not yet a problem at home; a ward hub wants an index by series.
    public func devices(of patientID: String, since: Date) async throws(CareStoreError) -> [SeenDevice] {
        let (registry, seen) = try await read { db -> ([DeviceAssignment], [SeenDevice]) in
            let registry = try Self.deviceAssignments(db).filter { $0.patientID == patientID }
            let codes = try SampleCodes(db)
            var seriesByDevice: [String: [(id: Int64, unit: HealthUnit)]] = [:]
            for (id, series) in codes.series {
                guard let device = series.device else { continue }
                seriesByDevice[device, default: []].append((id, HealthUnit(rawValue: series.unit)))
            }
            var reader = try SampleRowReader(db)
            var found: [SeenDevice] = []
            for (json, series) in seriesByDevice.sorted(by: { $0.key < $1.key }) {
                guard let identity = try? JSONDecoder().decode(DeviceIdentity.self, from: Data(json.utf8)) else {
                    continue
                }
                let ids = series.map { String($0.id) }.joined(separator: ", ")
                var last: StoredSample?
                for (code, name) in codes.types.sorted(by: { $0.key < $1.key }) {
                    guard let type = QuantityType(rawValue: name),
                        series.contains(where: { $0.unit.convert(1, to: type.canonicalUnit) != nil })
                    else { continue }
                    let newest = try reader.samples(
                        db,
                        where: """
                            r.type = ? AND r.start >= ? AND r.series IN (\(ids))
                            AND (r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0)
                            AND r.route IN (SELECT id FROM sampleRoute WHERE patientID = ?)
                            """,
                        arguments: [code, SampleTable.millisecondsCeiling(since), patientID],
                        suffix: "ORDER BY r.start DESC LIMIT 1",
                        limit: 1,
                        typeCode: code
                    ).first
                    if let newest, last.map({ newest.sample.start > $0.sample.start }) ?? true { last = newest }
                }
                found.append(SeenDevice(identity: identity, assignments: [], lastReading: last))
            }
            return (registry, found)
        }
        var devices: [SeenDevice] = []
        var filed = Set<Int>()
        for var device in seen {
            let names = device.registryNames
            for (index, row) in registry.enumerated() where names.contains(row.device) {
                device.assignments.append(row)
                filed.insert(index)
            }
            if device.lastReading != nil || !device.assignments.isEmpty { devices.append(device) }
        }
        // Registered, never heard from: one entry per device name.
        var unheard: [String: SeenDevice] = [:]
        for (index, row) in registry.enumerated() where !filed.contains(index) {
            unheard[
                row.device,
                default: SeenDevice(identity: DeviceIdentity(address: row.device), assignments: [], lastReading: nil)
            ]
            .assignments.append(row)
        }
        devices.sort { ($0.lastReading?.sample.start ?? .distantPast) > ($1.lastReading?.sample.start ?? .distantPast) }
        return devices + unheard.values.sorted { $0.identity.address ?? "" < $1.identity.address ?? "" }
    }
}
