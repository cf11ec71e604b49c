import BridgeCore
public import Foundation
import GRDB

extension CareStore {
    /// A live row of series `?` and route `?` at or after `?` (ms), of one of the type codes `known`: through the
    /// index by series, newest first with `ORDER BY r.start DESC` (`+r.type`: the type filters, never chooses the
    /// table's key instead).
    static func newestOfSeriesCondition(known: [Int64]) -> String {
        """
        r.series = ? AND r.route = ? AND r.start >= ? AND +r.type IN (\(known.map(String.init).joined(separator: ", ")))
        AND (r.state IS NULL OR r.state & \(SampleTable.deletedBit) = 0)
        """
    }

    /// The devices of one patient: every device the registry files under them, and every device that brought
    /// them a reading since `since`, each with the patient's last reading from it, newest first (registered
    /// devices not heard from last). Another patient's readings from a shared device are never returned.
    ///
    /// Reads, per series of each device and per route of the patient, the newest row: the last entry of
    /// `(series, route)` in the index by series (``SeriesIndexSchema``), one seek each. (It read each type's rows
    /// backwards to `since` before, stopping at the first of this patient's: another patient's 90 days of 1 Hz
    /// heart rate cost seconds per strap.)
    public func devices(of patientID: String, since: Date) async throws(CareStoreError) -> [SeenDevice] {
        let (registry, seen) = try await read { db -> ([DeviceAssignment], [SeenDevice]) in
            let registry = try Self.deviceAssignments(db).filter { $0.patientID == patientID }
            let codes = try SampleCodes(db)
            var seriesByDevice: [String: [Int64]] = [:]
            for (id, series) in codes.series {
                guard let device = series.device else { continue }
                seriesByDevice[device, default: []].append(id)
            }
            let routes = try Int64.fetchAll(
                db,
                sql: "SELECT id FROM sampleRoute WHERE patientID = ? ORDER BY id",
                arguments: [patientID]
            )
            // Rows of a type this release does not know are not read (the reader refuses them).
            let known = codes.types.filter { QuantityType(rawValue: $0.value) != nil }.keys.sorted()
            let condition = Self.newestOfSeriesCondition(known: known)
            var reader = try SampleRowReader(db)
            var found: [SeenDevice] = []
            for (json, series) in seriesByDevice.sorted(by: { $0.key < $1.key }) {
                guard let identity = try? JSONDecoder().decode(DeviceIdentity.self, from: Data(json.utf8)) else {
                    continue
                }
                var last: StoredSample?
                for id in series.sorted() {
                    for route in routes where !known.isEmpty {
                        let newest = try reader.samples(
                            db,
                            where: condition,
                            arguments: [id, route, SampleTable.millisecondsCeiling(since)],
                            suffix: "ORDER BY r.start DESC LIMIT 1",
                            limit: 1
                        ).first
                        if let newest, last.map({ newest.sample.start > $0.sample.start }) ?? true { last = newest }
                    }
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
