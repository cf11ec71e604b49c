import BlueZTransport
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding
import Synchronization
import TestSupport
import Testing

/// The live transport runs the `glucose-meter` profile's session against a fake RACP meter on the fake
/// bluetoothd: downloads, the per-device cursor, and the faults meters produce.
extension FakeBlueZSuites {
    @Suite
    struct SessionTests {
        static let meter = "C4:7C:8D:6A:3E:20"
        static let advert = #"{"name": "Meter", "rssi": -55, "serviceUUIDs": ["1808"]}"#
        static let racp = BluetoothUUID(0x2A52)

        /// Records `sequences` as the meter keeps them: flags 02, sequence, 2026-11-20 hh:00, 100 mg/dL, finger.
        static func records(_ sequences: some Sequence<Int>) -> String {
            let entries = sequences.map { sequence in
                let bytes: [UInt8] = [
                    0x02, UInt8(sequence & 0xFF), UInt8(sequence >> 8), 0xEA, 0x07, 11, 20, UInt8(sequence % 24), 0, 0,
                    0x64, 0xB0, 0x12,
                ]
                return #"{"seq": \#(sequence), "value": "\#(bytes.map { String(format: "%02x", $0) }.joined())"}"#
            }
            return "[" + entries.joined(separator: ", ") + "]"
        }

        struct Run {
            let fake: FakeBlueZ
            let transport: BlueZTransport
            let collector: EventCollector
            let memory: InMemorySessionMemory

            /// Sequence numbers of the glucose records delivered, in order.
            var sequences: [Int] {
                collector.values(BluetoothUUID(0x2A18)).map { Int($0[1]) | Int($0[2]) << 8 }
            }

            func cursor() async -> SessionValue? {
                await memory.variables(SessionTests.meter, "glucose-meter")["lastSequence"]
            }

            /// What the bridge wrote to the control point, as the fake journalled it.
            func racpWrites() async throws -> [String] {
                try await fake.journal().compactMap { line in
                    line.hasPrefix("WriteValue \(SessionTests.meter) 2a52 ")
                        ? String(line.split(separator: " ")[3]) : nil
                }
            }

            /// Advertises every 300 ms (a meter advertises while it has something to say) until `condition`.
            func advertise(until condition: () async throws -> Bool) async throws -> Bool {
                try await eventually(timeout: .seconds(120), interval: .milliseconds(300)) {
                    if try await condition() { return true }
                    try? await fake.advertise(SessionTests.meter, SessionTests.advert)
                    return false
                }
            }

            func disconnects() -> Int {
                collector.count { if case .disconnected = $0 { true } else { false } }
            }
        }

        func start(records: ClosedRange<Int>, faults: [(String, String)] = []) async throws -> Run {
            let fake = try await FakeBlueZ()
            try await fake.addAdapter()
            try await fake.mockCall(
                "AddGlucoseMeter",
                [.string("hci0"), .string(Self.meter), .string(Self.records(records))]
            )
            for (name, value) in faults { try await fake.setFault(name, value) }
            let memory = InMemorySessionMemory()
            let (transport, collector) = await fake.startTransport(memory: memory)
            return Run(fake: fake, transport: transport, collector: collector, memory: memory)
        }

        @Test func downloadsAllRecordsFirstThenOnlyTheNewOnesAndNeverDeletes() async throws {
            let run = try await start(records: 1...3)
            defer { run.fake.stop() }
            #expect(try await run.advertise { await run.cursor() == .integer(3) })
            #expect(run.sequences == [1, 2, 3])

            try await run.fake.mockCall("AddRecords", [.string(Self.meter), .string(Self.records(4...5))])
            try await run.fake.mockCall("DropLink", [.string(Self.meter)])
            #expect(await FakeBlueZ.eventually { run.disconnects() >= 1 })
            #expect(try await run.advertise { await run.cursor() == .integer(5) })

            #expect(try await run.racpWrites() == ["0401", "0101", "0106", "0403010400", "0103010400"])
            #expect(run.sequences == [1, 2, 3, 5, 4, 5], "all, then the last-record probe (5), then >= 4")
            let written = run.collector.events.compactMap { event -> [UInt8]? in
                if case .written(let write) = event.kind, write.characteristic == Self.racp { write.bytes } else { nil }
            }
            #expect(written.count == 5, "every write is an event, so `record` keeps it")
            #expect(try await !run.fake.journal().contains { $0.hasPrefix("RACP delete") })
            #expect(!run.collector.finished)
            await run.collector.shutDown(run.transport)
        }

        @Test func linkLostMidDownloadSavesNoCursorAndTheNextConnectionDownloadsAgain() async throws {
            let run = try await start(records: 1...6, faults: [("racp_drop_after", "3")])
            defer { run.fake.stop() }
            #expect(try await run.advertise { run.disconnects() >= 1 }, "the meter drops the link after 3")
            #expect(await run.cursor() == nil, "an interrupted download moves no cursor")
            #expect(try await run.advertise { await run.cursor() == .integer(6) })
            #expect(Array(run.sequences.prefix(3)) == [1, 2, 3])
            #expect(Set(run.sequences) == Set(1...6), "nothing received is lost; repeats are the store's to drop")
            #expect(try await run.racpWrites() == ["0401", "0101", "0401", "0101"])
            await run.collector.shutDown(run.transport)
        }

        @Test func aDownloadThatStallsTimesOutKeepsWhatCameAndResumesNextTime() async throws {
            let run = try await start(records: 1...6, faults: [("racp_stall_after", "3")])
            defer { run.fake.stop() }
            #expect(try await run.advertise { await run.cursor() == .integer(6) })
            let errors = run.collector.events.compactMap { event -> String? in
                if case .error(let message) = event.kind { message } else { nil }
            }
            #expect(
                errors.contains { $0.contains("no value matching '06 00 01 ??' on 2A52 within 120 s") },
                "\(errors)"
            )
            #expect(try await run.fake.journal().contains("RACP stalled \(Self.meter) after 3"))
            #expect(
                try await run.fake.journal().contains("Disconnect \(Self.meter) local"),
                "the stalled meter is let go"
            )
            #expect(Array(run.sequences.prefix(3)) == [1, 2, 3], "what came before the stall was delivered")
            #expect(Set(run.sequences) == Set(1...6), "nothing lost; the repeats are the store's to drop")
            #expect(
                try await run.racpWrites() == ["0401", "0101", "0401", "0101"],
                "no cursor: the same request again"
            )
            await run.collector.shutDown(run.transport)
        }

        @Test func procedureAlreadyInProgressFailsTheSessionAndTheNextConnectionSucceeds() async throws {
            let run = try await start(records: 1...2, faults: [("racp_in_progress", "1")])
            defer { run.fake.stop() }
            #expect(try await run.advertise { await run.cursor() == .integer(2) })
            let errors = run.collector.events.compactMap { event -> String? in
                if case .error(let message) = event.kind { message } else { nil }
            }
            #expect(errors.contains { $0.contains("device session failed") && $0.contains("write 2A52 04 01") })
            #expect(try await run.fake.journal().contains("Disconnect \(Self.meter) local"))
            #expect(run.sequences == [1, 2])
            #expect(!run.collector.finished)
            await run.collector.shutDown(run.transport)
        }

        @Test func aMeterThatNeverAnswersTimesOutWithoutSavingAndIsLetGo() async throws {
            let run = try await start(records: 1...2, faults: [("racp_silent", "1")])
            defer { run.fake.stop() }
            try await run.fake.advertise(Self.meter, Self.advert)
            let failed = await FakeBlueZ.eventually {
                run.collector.events.contains { event in
                    if case .error(let message) = event.kind {
                        message.contains("no value matching '05 00' on 2A52 within 30 s")
                    } else {
                        false
                    }
                }
            }
            #expect(failed)
            #expect(
                try await FakeBlueZ.eventually {
                    try await run.fake.journal().contains("Disconnect \(Self.meter) local")
                }
            )
            #expect(await run.cursor() == nil)
            #expect(run.sequences.isEmpty)
            #expect(!run.collector.finished, "the transport keeps running")
            await run.collector.shutDown(run.transport)
        }
    }
}
