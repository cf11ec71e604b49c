import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
import Logging
import SessionReplay
import Synchronization
import TestSupport
import Testing

/// A fake live transport: yields the events it was given.
struct ScriptedTransport: DeviceTransport {
    var script: [TransportEvent]
    func events() -> AsyncThrowingStream<TransportEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<TransportEvent, any Error>.makeStream()
        for event in script { continuation.yield(event) }
        continuation.finish()
        return stream
    }
}

@Suite struct RecordingRoundTripTests {
    /// This test's directory for its recording files, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("replay-") }

    static let start = Date(timeIntervalSince1970: 1_795_157_880)
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let script: [TransportEvent] = [
        TransportEvent(
            time: start.addingTimeInterval(0.4),
            device: "C4:7C:8D:6A:3E:10",
            kind: .advertisement(
                Advertisement(
                    name: "MIBFS",
                    rssi: -61,
                    serviceUUIDs: [.bodyCompositionService],
                    serviceData: [.bodyCompositionService: [0x02, 0x22]],
                    manufacturerData: [0x0157: [0xAA]]
                )
            )
        ),
        TransportEvent(time: start.addingTimeInterval(1), device: "C4:7C:8D:6A:3E:10", kind: .connected),
        TransportEvent(
            time: start.addingTimeInterval(1.2),
            device: "C4:7C:8D:6A:3E:10",
            kind: .servicesDiscovered([.weightScaleService: [.weightMeasurement]])
        ),
        TransportEvent(
            time: start.addingTimeInterval(3),
            device: "C4:7C:8D:6A:3E:10",
            kind: .value(
                CharacteristicValue(characteristic: .weightMeasurement, bytes: [0, 0xA4, 0x38], delivery: .indication)
            )
        ),
        // What the bridge wrote: recorded so a replay can answer it (request and command).
        TransportEvent(
            time: start.addingTimeInterval(4),
            device: "C4:7C:8D:6A:3E:10",
            kind: .written(CharacteristicWrite(characteristic: BluetoothUUID(0x2A52), bytes: [0x01, 0x01]))
        ),
        TransportEvent(
            time: start.addingTimeInterval(4.5),
            device: "C4:7C:8D:6A:3E:10",
            kind: .written(
                CharacteristicWrite(characteristic: BluetoothUUID(0x2A2B), bytes: [0xEA, 0x07], withResponse: false)
            )
        ),
        TransportEvent(
            time: start.addingTimeInterval(10),
            device: "C4:7C:8D:6A:3E:10",
            kind: .disconnected(reason: "remote")
        ),
    ]

    @Test func recorderTeesEventsAndReplayGivesThemBack() async throws {
        let path = try temporaryFile("tee.jsonl", contents: "", in: scratch)
        let recorder = try RecordingTransport(
            recording: ScriptedTransport(script: Self.script),
            to: path,
            recordedAt: Self.start,
            timeZone: Self.zone,
            logger: Logger(label: "t")
        )
        var passedOn: [TransportEvent] = []
        for try await event in recorder.events() { passedOn.append(event) }
        recorder.close()
        #expect(passedOn == Self.script)

        let replay = try ReplayTransport(path: path, logger: Logger(label: "t"))
        #expect(replay.header.recordedAt == Self.start)
        #expect(replay.header.timeZone == Self.zone)
        var replayed: [TransportEvent] = []
        for try await event in replay.events() { replayed.append(event) }
        #expect(replayed == Self.script)
    }

    @Test func realtimeAndFactorSpeedsSleepOnTheInjectedClock() async throws {
        let path = try temporaryFile("pace.jsonl", contents: "", in: scratch)
        let writer = try RecordingWriter(
            path: path,
            header: RecordingHeader(recordedAt: Self.start, timeZone: Self.zone)
        )
        for event in Self.script { try writer.write(event) }
        try writer.close()

        for (speed, expected) in [(ReplaySpeed.realtime, 9.6), (.factor(4), 2.4)] {
            let clock = TestClock()
            let transport = try ReplayTransport(path: path, speed: speed, clock: clock, logger: Logger(label: "t"))
            let before = clock.now
            var count = 0
            for try await _ in transport.events() { count += 1 }
            #expect(count == Self.script.count)
            let elapsed = before.duration(to: clock.now)
            #expect(
                abs(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 - expected)
                    < 1e-6
            )
        }
        let clock = TestClock()
        let fast = try ReplayTransport(path: path, speed: .max, clock: clock, logger: Logger(label: "t"))
        for try await _ in fast.events() {}
        #expect(clock.sleeps.withLock { $0.isEmpty })
    }

    @Test(
        "parses speeds",
        arguments: [("max", ReplaySpeed.max), ("realtime", .factor(1)), ("10", .factor(10)), ("0.5", .factor(0.5))]
    )
    func parsesSpeed(text: String, speed: ReplaySpeed) {
        #expect(ReplaySpeed(text) == speed)
    }

    @Test func rejectsNonsenseSpeeds() {
        #expect(ReplaySpeed("0") == nil)
        #expect(ReplaySpeed("-2") == nil)
        #expect(ReplaySpeed("fast") == nil)
    }

    @Test func itemsCarryFileAndLine() async throws {
        let path = try temporaryFile("lines.jsonl", contents: "", in: scratch)
        let writer = try RecordingWriter(
            path: path,
            header: RecordingHeader(recordedAt: Self.start, timeZone: Self.zone)
        )
        for event in Self.script { try writer.write(event) }
        try writer.close()
        let transport = try ReplayTransport(path: path, logger: Logger(label: "t"))
        var lines: [Int] = []
        for try await item in transport.items() {
            if case .event(_, let location) = item {
                #expect(location.file == path)
                lines.append(location.line)
            }
        }
        #expect(lines == [2, 3, 4, 5, 6, 7, 8])
    }
}

@Suite struct ReplayCancellationTests {
    /// This test's directory for its recording files, removed when the test ends.
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory("replay-") }

    @Test func streamFinishesWhenTheConsumerIsCancelled() async throws {
        let path = try temporaryFile("long.jsonl", contents: "", in: scratch)
        let start = Date(timeIntervalSince1970: 1_795_157_880)
        let writer = try RecordingWriter(path: path, header: RecordingHeader(recordedAt: start, timeZone: nil))
        for second in 0..<10_000 {
            try writer.write(
                TransportEvent(
                    time: start.addingTimeInterval(Double(second)),
                    device: "AA:BB:CC:DD:EE:FF",
                    kind: .connected
                )
            )
        }
        try writer.close()
        let transport = try ReplayTransport(path: path, logger: Logger(label: "t"))
        let task = Task {
            var count = 0
            for try await _ in transport.events() {
                count += 1
                if count == 10 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        let count = try await task.value
        #expect(count >= 10)
        #expect(count < 10_000)
    }
}
