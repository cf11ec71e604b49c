import BlueZTransport
import BridgeCore
import Foundation
import TestSupport
import Testing

/// The live transport reads descriptors for a session step (`read` with `descriptor`): the shipped `ghs` profile
/// reads the Observation Schedule descriptors (0x2910) a GHS sensor keeps on Health Sensor Features, one per
/// observation type, with `GattDescriptor1.ReadValue` on the objects bluetoothd exports under the characteristic.
extension FakeBlueZSuites {
    @Suite
    struct DescriptorReadTests {
        static let sensor = "C4:7C:8D:6A:3E:40"
        static let advert = #"{"name": "GHS Sensor", "rssi": -50, "serviceUUIDs": ["1840"]}"#
        /// SpO2 (150456) measured over 1 s every 1 s; pulse rate (149530) over 4 s every 2 s.
        static let schedules = ["b84b02000100000001000000", "1a4802000400000002000000"]

        static func spec(descriptors: [String]) -> String {
            let entries = descriptors.map { #"["2910", "\#($0)"]"# }.joined(separator: ", ")
            return #"""
                {"name": "GHS Sensor", "services": {"1840": [["2B8B", "notify"], ["2BDD", "notify"], ["2BF3", "read"],
                ["2BF1", "indicate"], ["2A52", "write,indicate"], ["2BF4", "write"]]},
                "reads": {"2BF3": "0002b84b02001a480200"}, "descriptors": {"2BF3": [\#(entries)]}}
                """#
        }

        /// Runs the `ghs` session against a sensor with `descriptors` until it wrote Start Send Live Observations;
        /// the fake's journal from then.
        func journal(descriptors: [String]) async throws -> [String] {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.addPeripheral(Self.sensor, Self.spec(descriptors: descriptors))
            let (transport, collector) = await fake.startTransport(memory: InMemorySessionMemory())
            let started = try await eventually(timeout: .seconds(180), interval: .milliseconds(300)) {
                if try await fake.journal().contains("WriteValue \(Self.sensor) 2bf4 01") { return true }
                try? await fake.advertise(Self.sensor, Self.advert)
                return false
            }
            #expect(started, "the session went on to Start Send Live Observations")
            let journal = try await fake.journal()
            await collector.shutDown(transport)
            return journal
        }

        @Test func theObservationScheduleDescriptorsAreReadInHandleOrderBeforeTheSessionGoesOn() async throws {
            let journal = try await journal(descriptors: Self.schedules)
            let reads = journal.filter { $0.hasPrefix("ReadDescriptor \(Self.sensor) 2bf3 2910 ") }
            #expect(reads.count == 2, "\(journal)")
            #expect(reads == reads.sorted(), "in handle order")
            let firstWrite = try #require(journal.firstIndex(of: "WriteValue \(Self.sensor) 2bf4 01"))
            #expect(journal.firstIndex { $0.hasPrefix("ReadDescriptor") } ?? .max < firstWrite)
        }

        @Test func aSensorWithoutTheDescriptorIsReadAllTheSame() async throws {
            // The step is optional: the transport's descriptorUnavailable failure moves the session on.
            let journal = try await journal(descriptors: [])
            #expect(!journal.contains { $0.hasPrefix("ReadDescriptor") })
            #expect(journal.contains("WriteValue \(Self.sensor) 2bf4 01"))
        }
    }
}
