import BridgeCore
import CarePlan
import CareStore
import Foundation
import Logging
import MQTTBridge
import TestSupport
import Testing

/// MQTT per patient: with several patients every state topic carries the patient and each patient's readings of a
/// device are a Home Assistant device of their own; readings in the unassigned inbox are not published until
/// `samples assign` files them, then they go out on their patient's topic. Against a real mosquitto.
@Suite(
    "MQTT topics per patient with a real broker",
    .serialized,
    .enabled(if: MosquittoBroker.testsEnabled, "needs mosquitto; \(MosquittoBroker.installHint)")
)
struct PerPatientMQTTTests {
    static let guestScale = DeviceIdentity(address: "C8:47:8C:00:00:99", name: "Guest scale")

    static func weight(_ kilograms: Double, minute: Int, device: DeviceIdentity) -> QuantitySample {
        let start = Date(timeIntervalSince1970: 1_800_000_000 + Double(minute) * 60)
        return QuantitySample(
            type: .bodyMass,
            value: kilograms,
            unit: .kilogram,
            start: start,
            source: SampleSource(kind: .device, decoder: "weight-measurement", device: device),
            receivedAt: start,
            rawPayload: [0x02, UInt8(minute), UInt8(Int(kilograms))]
        )
    }

    @Test func severalPatientsGetTheirOwnTopicsAndDevicesAndInboxReadingsWaitUntilAssigned() async throws {
        let scratch = try ScratchDirectory("mqtt-bridge-")
        let broker = try MosquittoBroker()
        try broker.start()
        defer { broker.stop() }
        let store = try CareStore(
            path: scratch.path("store.sqlite"),
            bridgeZone: SampleStateChannelTests.utc,
            logger: SampleStateChannelTests.quiet
        )
        try await store.enableOutbox()
        try await store.savePatient(Patient(id: "anna", name: "Anna"))
        try await store.savePatient(Patient(id: "ben", name: "Ben"))
        try await store.assignDevice(SampleStateChannelTests.scale.address!, to: "anna")
        let anna = Self.weight(61, minute: 0, device: SampleStateChannelTests.scale)
        let ben = Self.weight(84, minute: 1, device: SampleStateChannelTests.scale)
        let guest = Self.weight(77, minute: 2, device: Self.guestScale)
        try await store.recordSamples([anna])
        try await store.scoped(to: "ben").recordSamples([ben])
        try await store.recordSamples([guest])
        #expect(try await store.unassignedCount() == 1, "the guest scale has no owner")

        let never = 1000
        let states = try await MosquittoSubscriber(broker: broker, topic: "carebridge/+/+/+", count: never)
        let configs = try await MosquittoSubscriber(broker: broker, topic: "homeassistant/#", count: never)
        let publisher = try await SampleStateChannelTests.publisher(store, broker: broker)
        await publisher.start()
        #expect(await publisher.drain(timeout: .seconds(180)) == 0)
        #expect(await publisher.statistics.delivered == 2)
        #expect(await publisher.statistics.unassigned == 1)

        func byID() throws -> [String: (topic: String, patient: String?)] {
            var result: [String: (String, String?)] = [:]
            for message in states.received {
                let payload = try jsonObject(message.payload)
                result[payload["id"] as? String ?? ""] = (message.topic, payload["patient"] as? String)
            }
            return result
        }
        let id = { (sample: QuantitySample) in sample.id.uuidString.lowercased() }
        try await waitUntil("both patients' readings arrive") { try byID().count == 2 }
        var seen = try byID()
        #expect(seen[id(anna)]?.topic == "carebridge/anna/c8_47_8c_00_00_01/bodyMass")
        #expect(seen[id(anna)]?.patient == "anna")
        #expect(seen[id(ben)]?.topic == "carebridge/ben/c8_47_8c_00_00_01/bodyMass")
        #expect(seen[id(guest)] == nil, "an unassigned reading is nobody's topic")

        try await waitUntil("two discovery configs") { configs.received.count >= 2 }
        let devices = try configs.received.map { message -> (String, String?) in
            let device = try jsonObject(message.payload)["device"] as? [String: Any]
            return (message.topic, device?["name"] as? String)
        }
        #expect(
            Set(devices.map(\.0)) == [
                "homeassistant/sensor/carebridge_anna_c8_47_8c_00_00_01/bodyMass/config",
                "homeassistant/sensor/carebridge_ben_c8_47_8c_00_00_01/bodyMass/config",
            ]
        )
        #expect(Set(devices.compactMap(\.1)) == ["Scale (Anna)", "Scale (Ben)"])

        // Filed under Ben: queued again and published on his topic.
        try await store.assignSample(id: guest.id, to: "ben")
        try await waitUntil("the assigned reading is published") { try byID()[id(guest)] != nil }
        seen = try byID()
        #expect(seen[id(guest)]?.topic == "carebridge/ben/c8_47_8c_00_00_99/bodyMass")
        #expect(seen[id(guest)]?.patient == "ben")
        #expect(await publisher.drain(timeout: .seconds(180)) == 0)
        await publisher.stopWithConnection()
    }
}
