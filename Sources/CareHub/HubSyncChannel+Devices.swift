import BridgeCore
import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import Logging

extension HubSyncChannel {
    /// Each patient's devices (the registry's and those that brought the patient a reading) as `device` messages,
    /// those whose facts differ from the ones the hub last confirmed; none when the store cannot say (the next
    /// pass asks again).
    func changedDeviceFacts() async -> [SyncMessage] {
        let read = wallClock()
        let sequence = Int64((read.timeIntervalSince1970 * 1000).rounded(.down))
        var messages: [SyncMessage] = []
        do {
            let batteries = try await store.batteryLevels()
            for patient in try await store.patients() {
                for device in try await store.devices(of: patient.id, since: Date(timeIntervalSince1970: 0)) {
                    let identity = device.identity
                    let body = HubDevice.body(
                        identity: [
                            "address": identity.address, "name": identity.name,
                            "manufacturer": identity.manufacturer, "model": identity.model,
                            "serial": identity.serial, "firmware": identity.firmware, "hardware": identity.hardware,
                            "software": identity.software, "profile": identity.profile,
                        ],
                        battery: batteries[identity.key].map { ($0.level, Timestamp.format($0.at, in: zone)) },
                        lastSeen: device.lastReading.map { Timestamp.format($0.sample.start, in: zone) }
                    )
                    let message = SyncMessage(
                        kind: .device,
                        id: String(identity.key.prefix(200)),
                        sequence: sequence,
                        patient: patient.id,
                        body: body
                    )
                    if confirmedFacts[Self.factsKey(message)] != body { messages.append(message) }
                }
            }
        } catch {
            logger.warning("cannot read the devices for the hub", metadata: ["error": "\(error.message)"])
            return []
        }
        return messages
    }

    /// Device facts are per patient and device.
    static func factsKey(_ message: SyncMessage) -> String { "\(message.patient)\u{0}\(message.id)" }
}
