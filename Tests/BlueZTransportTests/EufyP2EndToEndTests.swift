import BlueZTransport
import BridgeFoundation
import Foundation
import TestSupport
import Testing

/// The real `carebridge run` with a store against the scripted Eufy P2 on the fake bluetoothd: a handshake that
/// succeeds stores the final weighing, one that fails (the scale keys its answers to another address) stores
/// nothing and says why.
extension FakeBlueZSuites {
    @Suite
    struct EufyP2EndToEndTests {
        static let scale = "CF:E6:03:1D:09:F7"
        static let advert = #"{"name": "eufy T9148", "rssi": -50}"#

        func run(
            _ spec: String,
            until done: (CarebridgeBinary, String) async throws -> Bool
        ) async throws -> (
            stored: [BridgeEndToEndTests.SampleKey], log: String
        ) {
            let fake = try await FakeBlueZ()
            defer { fake.stop() }
            try await fake.addAdapter()
            try await fake.mockCall("AddEufyP2Scale", [.string("hci0"), .string(Self.scale), .string(spec)])
            let store = BridgeEndToEndTests.temporaryStore()
            defer { try? FileManager.default.removeItem(atPath: store) }
            let bridge = try await BridgeEndToEndTests.startBridge(fake, store: store)
            let finished = try await eventually(timeout: .seconds(180), interval: .milliseconds(500)) {
                if try await done(bridge, store) { return true }
                try? await fake.advertise(Self.scale, Self.advert)
                return false
            }
            #expect(finished, "\(bridge.stderr)")
            #expect(await bridge.terminate() == 0)
            return (try await BridgeEndToEndTests.storedKeys(store), bridge.stderr)
        }

        @Test func anAuthenticatedWeighingIsStoredOnce() async throws {
            let (stored, log) = try await run(#"{"weighings": [[80.0, 500]]}"#) { _, store in
                try await BridgeEndToEndTests.storedKeys(store).count >= 1
            }
            // The weight alone: bytes 8-10 are no usable impedance (ble-scale-sync issue #289).
            #expect(stored.map(\.type) == ["bodyMass"], "\(stored)")
            #expect(stored.contains { $0.type == "bodyMass" && Double($0.value) == 80 }, "\(stored)")
            #expect(!log.contains("eufy handshake:"), "\(log)")
        }

        @Test func aScaleUnderAnotherKeyStoresNothingAndTheLogSaysWhy() async throws {
            let reason = "eufy handshake: the scale's C1 does not decrypt with the key derived from its address"
            let (stored, log) = try await run(#"{"weighings": [[80.0, 500]], "key_address": "11:22:33:44:55:66"}"#) {
                bridge,
                _ in bridge.stderr.contains(reason)
            }
            #expect(log.contains(reason))
            #expect(stored.isEmpty, "\(stored)")
        }
    }
}
