public import BridgeCore
public import Foundation
import GRDB

extension CareStore {
    /// Keeps devices' battery levels: per device the newest (a level read earlier than the one kept is ignored).
    public func recordBatteries(_ readings: [BatteryReading]) async throws(CareStoreError) {
        guard !readings.isEmpty else { return }
        try await write { db in
            for reading in readings {
                try db.execute(
                    sql: """
                        INSERT INTO deviceBattery (deviceKey, level, readAt) VALUES (?, ?, ?)
                        ON CONFLICT (deviceKey) DO UPDATE SET level = excluded.level, readAt = excluded.readAt
                        WHERE excluded.readAt >= deviceBattery.readAt
                        """,
                    arguments: [reading.device.key, reading.level, reading.at.timeIntervalSince1970]
                )
            }
        }
    }

    /// The newest battery level of each device, by device key (``DeviceIdentity/key``).
    public func batteryLevels() async throws(CareStoreError) -> [String: (level: Int, at: Date)] {
        try await read { db in
            var levels: [String: (level: Int, at: Date)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT deviceKey, level, readAt FROM deviceBattery") {
                levels[row["deviceKey"]] = (row["level"], Date(timeIntervalSince1970: row["readAt"]))
            }
            return levels
        }
    }
}
