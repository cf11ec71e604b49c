import BridgeFoundation
import Foundation
import PostgresNIO

extension HubStore {
    /// The devices bridges reported, each with its newest facts, by bridge, patient and key.
    public func devices() async throws(HubError) -> [HubDevice] {
        try await database("cannot read the bridges' devices") {
            let rows = try await client.query(
                """
                SELECT b.name, d.patient_id, d.id, d.body::text, d.received_at
                FROM hub_device d JOIN hub_bridge b ON b.id = d.bridge_id ORDER BY b.name, d.patient_id, d.id
                """,
                logger: logger
            )
            var devices: [HubDevice] = []
            for try await (bridge, patient, key, body, received) in rows.decode(
                (String, String, String, String, Date).self
            ) {
                devices.append(
                    HubDevice(
                        bridge: bridge,
                        patient: patient,
                        key: key,
                        body: (try? JSONValue.parse(Array(body.utf8))) ?? .object([:]),
                        receivedAt: received
                    )
                )
            }
            return devices
        }
    }
}
