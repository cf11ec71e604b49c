import BlueZTransport
import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The live transport runs the `viatom-o2ring` profile's session against a scripted O2Ring on the fake bluetoothd
/// (`AddViatomRing`): every file read once over the vendor characteristics, a damaged answer asked for again, a
/// link lost in the middle of a file read again without duplicates, and nothing but read commands sent.
extension FakeBlueZSuites {
    @Suite
    struct ViatomSessionTests {
        static let catalog = DeviceProfileLoader.load(directories: [
            FakeBlueZ.packageRoot.appendingPathComponent("Devices")
        ])
        .catalog
        static let ring = "C4:7C:8D:6A:3E:31"
        static let advert = #"{"name": "O2Ring 2345", "rssi": -55}"#
        static let download = catalog.profile(id: "viatom-o2ring")!.viatom!
        static let utc = TimeZone(identifier: "UTC")!

        static let night = ViatomRing.file(
            start: (2026, 11, 27, 23, 0, 0),
            records: (0..<8).map { [UInt8(94 + $0 % 5), UInt8(58 + $0), 0, 0, 0] }
        )
        static let nap = ViatomRing.file(start: (2026, 11, 28, 14, 0, 0), interval: 2, records: [[97, 70, 0, 0, 0]])

        static func files(_ files: [(String, [UInt8])]) -> String {
            "[" + files.map { #"{"name": "\#($0.0)", "hex": "\#(Hex.string($0.1))"}"# }.joined(separator: ", ") + "]"
        }

        struct Run {
            let fake: FakeBlueZ
            let transport: BlueZTransport
            let collector: EventCollector
            let memory: InMemorySessionMemory

            func cursor() async -> [String] {
                ViatomDownload.names(
                    in: await memory.variables(ViatomSessionTests.ring, "viatom-o2ring")[ViatomDownload.cursorVariable]
                )
            }

            /// The requests the ring journalled: command (hex) and block.
            func requests() async throws -> [String] {
                try await fake.journal().compactMap { line in
                    line.hasPrefix("Viatom \(ViatomSessionTests.ring) ")
                        ? line.split(separator: " ").dropFirst(2).joined(separator: " ") : nil
                }
            }

            var read: StreamedRecords {
                ViatomRing.read(collector.events, download: ViatomSessionTests.download, zone: ViatomSessionTests.utc)
            }

            func advertise(until condition: () async throws -> Bool) async throws -> Bool {
                try await eventually(timeout: .seconds(180), interval: .milliseconds(300)) {
                    if try await condition() { return true }
                    try? await fake.advertise(ViatomSessionTests.ring, ViatomSessionTests.advert)
                    return false
                }
            }

            func disconnects() -> Int {
                collector.count { if case .disconnected = $0 { true } else { false } }
            }
        }

        func start(_ files: [(String, [UInt8])], faults: [(String, String)] = []) async throws -> Run {
            let fake = try await FakeBlueZ()
            try await fake.addAdapter()
            try await fake.mockCall(
                "AddViatomRing",
                [.string("hci0"), .string(Self.ring), .string(Self.files(files)), .uint32(32)]
            )
            for (name, value) in faults { try await fake.setFault(name, value) }
            let memory = InMemorySessionMemory()
            var configuration = BlueZConfiguration.testing(fake.address)
            configuration.sessionMemory = memory
            configuration.sessionTimeScale = 0.5
            let collector = EventCollector()
            let transport = BlueZTransport(
                configuration: configuration,
                policy: Self.catalog,
                logger: .test,
                status: { collector.record($0) }
            )
            collector.start(transport)
            #expect(await FakeBlueZ.eventually { collector.statusLog.contains(.ready(adapter: "hci0")) })
            return Run(fake: fake, transport: transport, collector: collector, memory: memory)
        }

        @Test func readsEveryFileOnceThenOnlyTheNewOneAndSendsNothingButReads() async throws {
            let run = try await start([("20261127230000", Self.night)])
            defer { run.fake.stop() }
            #expect(try await run.advertise { await run.cursor() == ["20261127230000"] })
            #expect(run.read.samples.filter { $0.metadata["live"] == nil }.count == 16)

            try await run.fake.mockCall(
                "AddViatomFiles",
                [.string(Self.ring), .string(Self.files([("20261128140000", Self.nap)]))]
            )
            try await run.fake.mockCall("DropLink", [.string(Self.ring)])
            #expect(await FakeBlueZ.eventually { run.disconnects() >= 1 })
            #expect(try await run.advertise { await run.cursor() == ["20261127230000", "20261128140000"] })

            let requests = try await run.requests()
            #expect(requests.filter { $0.hasPrefix("03") }.count == 2, "each file opened once: \(requests)")
            #expect(Set(requests.map { String($0.prefix(2)) }) == ["14", "03", "04", "05", "17"])
            let read = run.read
            #expect(read.problems.isEmpty && read.warnings.isEmpty)
            let file = read.samples.filter { $0.metadata["live"] == nil }
            #expect(file.count == 18)
            #expect(
                file.last?.deviceTime == DateTime(year: 2026, month: 11, day: 28, hours: 14, minutes: 0, seconds: 0)
            )
            await run.collector.shutDown(run.transport)
        }

        @Test func aCorruptedAnswerIsRefusedAskedForAgainAndStoredOnce() async throws {
            let run = try await start([("20261127230000", Self.night)], faults: [("viatom_corrupt", "4")])
            defer { run.fake.stop() }
            #expect(try await run.advertise { await run.cursor() == ["20261127230000"] })
            let read = run.read
            #expect(read.warnings.contains { $0.contains("response refused: CRC-8") }, "\(read.warnings)")
            let file = read.samples.filter { $0.metadata["live"] == nil }
            #expect(file.count == 16)
            #expect(Set(file.map { $0.idFromKey() }).count == 16, "nothing twice")
            let reads = try await run.requests().filter { $0.hasPrefix("04") }
            #expect(reads.count == 3 + 1, "the file's three blocks, the damaged one asked again: \(reads)")
            await run.collector.shutDown(run.transport)
        }

        @Test func aLinkLostInTheMiddleOfAFileSavesNoCursorAndTheFileIsReadAgain() async throws {
            let run = try await start(
                [("20261127230000", Self.night)],
                faults: [("viatom_drop_after_reads", "2")]
            )
            defer { run.fake.stop() }
            #expect(try await run.advertise { run.disconnects() >= 1 }, "the ring drops the link after block 1")
            #expect(await run.cursor().isEmpty, "an interrupted download moves no cursor")
            #expect(try await run.advertise { await run.cursor() == ["20261127230000"] })
            let read = run.read
            #expect(read.problems.isEmpty)
            let file = read.samples.filter { $0.metadata["live"] == nil }
            #expect(file.count == 16, "the unfinished first read gave nothing; the second gave the file once")
            #expect(try await run.requests().filter { $0.hasPrefix("03") }.count == 2, "opened again")
            await run.collector.shutDown(run.transport)
        }
    }
}
