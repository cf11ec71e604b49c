import BlueZTransport
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The live transport runs the `eufy-p2` profile's AES handshake against a scripted Eufy P2 on the fake bluetoothd
/// (`AddEufyP2Scale` in `Fixtures/fake_bluez.py`, the scale's side written in Python on `cryptography`): weights
/// come only after C3, and a wrong key, a corrupted answer or a refusal stops the session with a named error.
extension FakeBlueZSuites {
    @Suite
    struct EufyP2SessionTests {
        static let scale = "CF:E6:03:1D:09:F7"
        static let advert = #"{"name": "eufy T9148", "rssi": -50}"#
        static let weights = BluetoothUUID(0xFFF2)

        struct Run {
            let fake: FakeBlueZ
            let transport: BlueZTransport
            let collector: EventCollector

            var errors: [String] {
                collector.events.compactMap { event in
                    if case .error(let message) = event.kind { message } else { nil }
                }
            }

            /// What the bridge wrote to FFF1, as the fake journalled it.
            func writes() async throws -> [[UInt8]] {
                try await fake.journal().compactMap { line in
                    guard line.hasPrefix("WriteValue \(EufyP2SessionTests.scale) fff1 ") else { return nil }
                    return try? Hex.bytes(String(line.split(separator: " ")[3]))
                }
            }

            /// Advertises every 300 ms (the scale advertises while it is awake) until `condition`.
            func advertise(until condition: () async throws -> Bool) async throws -> Bool {
                try await eventually(timeout: .seconds(180), interval: .milliseconds(300)) {
                    if try await condition() { return true }
                    try? await fake.advertise(EufyP2SessionTests.scale, EufyP2SessionTests.advert)
                    return false
                }
            }
        }

        func start(_ spec: String) async throws -> Run {
            let fake = try await FakeBlueZ()
            try await fake.addAdapter()
            try await fake.mockCall("AddEufyP2Scale", [.string("hci0"), .string(Self.scale), .string(spec)])
            let (transport, collector) = await fake.startTransport()
            return Run(fake: fake, transport: transport, collector: collector)
        }

        @Test func theHandshakeUnlocksTheWeighingsAndOnlyHandshakeFramesAreWritten() async throws {
            let run = try await start(#"{"weighings": [[80.0, 500]]}"#)
            defer { run.fake.stop() }
            #expect(try await run.advertise { run.collector.values(Self.weights).count >= 2 })
            let values = run.collector.values(Self.weights)
            #expect(values.last == [0xCF, 0x0E, 0, 0xCF, 0, 0, 0x40, 0x1F, 0xF4, 0x01, 0, 0, 0, 0, 0, 0x65])
            let journal = try await run.fake.journal()
            let c0 = journal.first { $0.hasPrefix("eufy C0 \(Self.scale) client=") }
            #expect(c0.map { $0.split(separator: "=").last?.count } == 15, "the scale decrypted a 15-character id")
            #expect(journal.contains("eufy C2 \(Self.scale) accepted=True status=0"))
            let writes = try await run.writes()
            #expect(!writes.isEmpty)
            #expect(writes.allSatisfy { $0.first == 0xC0 || $0.first == 0xC2 }, "only handshake segments are written")
            #expect(run.errors.isEmpty, "\(run.errors)")
            await run.collector.shutDown(run.transport)
        }

        @Test(arguments: [
            (
                #"{"weighings": [[80.0, 500]], "key_address": "11:22:33:44:55:66"}"#,
                "the scale's C1 does not decrypt with the key derived from its address"
            ),
            (#"{"weighings": [[80.0, 500]], "corrupt_c1": true}"#, "C1 segment 0: XOR checksum is"),
            (#"{"weighings": [[80.0, 500]], "c3_status": 2}"#, "the scale refused the handshake (C3 status 02)"),
        ])
        func aWrongKeyACorruptAnswerOrARefusalStopsTheSessionAndDeliversNoWeight(
            spec: String,
            reason: String
        ) async throws {
            let run = try await start(spec)
            defer { run.fake.stop() }
            #expect(
                try await run.advertise {
                    run.errors.contains { $0.contains("device session failed: eufy handshake: \(reason)") }
                },
                "\(run.errors)"
            )
            #expect(
                try await FakeBlueZ.eventually {
                    try await run.fake.journal().contains("Disconnect \(Self.scale) local")
                },
                "the scale is let go"
            )
            #expect(run.collector.values(Self.weights).isEmpty, "no weight on an unauthenticated link")
            await run.collector.shutDown(run.transport)
        }
    }
}
