import BridgeCore
import BridgeFoundation
import DeviceSessions
import Foundation
import GATTDecoding
import Testing

/// The session interpreter on its own: inputs in, actions out, no I/O.
@Suite struct SessionMachineTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let now = Date(timeIntervalSince1970: 1_795_519_815)
    static let racp = BluetoothUUID(0x2A52)
    static let measurement = BluetoothUUID(0x2A18)

    static func value(
        _ uuid: BluetoothUUID,
        _ text: String,
        _ delivery: CharacteristicValue.Delivery = .indication
    )
        -> SessionInput
    {
        .value(CharacteristicValue(characteristic: uuid, bytes: hex(text), delivery: delivery))
    }

    static func write(_ text: String) throws -> SessionStep {
        .write(SessionStep.Write(characteristic: racp, value: try ByteTemplate(text)))
    }

    static func await(_ pattern: String, timeout: Double = 30, optional: Bool = false) throws -> SessionStep {
        .await(
            SessionStep.Await(
                characteristic: racp,
                pattern: try BytePattern(pattern),
                timeout: timeout,
                optional: optional
            )
        )
    }

    static func writtenBytes(_ actions: [SessionAction]) -> [[UInt8]] {
        actions.compactMap { if case .write(_, _, let bytes, _) = $0 { bytes } else { nil } }
    }

    static func id(_ actions: [SessionAction]) -> Int? {
        for action in actions {
            switch action {
            case .write(let id, _, _, _), .read(let id, _), .subscribe(let id, _), .readDescriptors(let id, _, _):
                return id
            default: continue
            }
        }
        return nil
    }

    static func timer(_ actions: [SessionAction]) -> (id: Int, seconds: Double)? {
        for case .startTimer(let id, let seconds) in actions { return (id, seconds) }
        return nil
    }

    @Test func writeThenAwaitTheResponseThenFinishWithPersistedVariables() throws {
        let script = SessionScript(
            steps: [try Self.write("01 01"), try Self.await("06 00 01 ??")],
            captures: [
                .init(characteristic: Self.measurement, capture: try SessionCapture(variable: "last", spec: "u16@1"))
            ],
            persist: ["last"]
        )
        var machine = SessionMachine(script: script, timeZone: Self.utc)
        let started = machine.start(now: Self.now)
        #expect(Self.writtenBytes(started) == [hex("01 01")])
        let written = try #require(Self.id(started))
        #expect(Self.timer(machine.handle(.completed(action: written), now: Self.now))?.seconds == 30)
        _ = machine.handle(Self.value(Self.measurement, "00 07 00", .notification), now: Self.now)
        let end = machine.handle(Self.value(Self.racp, "06 00 01 01"), now: Self.now)
        #expect(end == [.finished(persist: ["last": .integer(7)])])
        #expect(machine.status == .finished)
    }

    @Test func responseThatOvertakesTheWriteAcknowledgementIsNotMissed() throws {
        var machine = SessionMachine(
            script: SessionScript(steps: [try Self.write("04 01"), try Self.await("05 00")]),
            timeZone: Self.utc
        )
        let written = try #require(Self.id(machine.start(now: Self.now)))
        #expect(machine.handle(Self.value(Self.racp, "05 00 03 00"), now: Self.now).isEmpty)
        #expect(machine.handle(.completed(action: written), now: Self.now) == [.finished(persist: [:])])
    }

    @Test func awaitTimeoutFailsNamingPatternAndCharacteristic() throws {
        var machine = SessionMachine(
            script: SessionScript(steps: [try Self.await("06 00 01", timeout: 5)]),
            timeZone: Self.utc
        )
        let timer = try #require(Self.timer(machine.start(now: Self.now)))
        #expect(timer.seconds == 5)
        #expect(machine.handle(.timer(timer.id + 99), now: Self.now).isEmpty, "a stale timer is ignored")
        let actions = machine.handle(.timer(timer.id), now: Self.now)
        guard case .failed(let reason) = actions.first else {
            Issue.record("expected failure, got \(actions)")
            return
        }
        #expect(reason.contains("'06 00 01'") && reason.contains("2A52") && reason.contains("5 s"))
    }

    @Test func optionalAwaitMovesOnAfterItsTimeout() throws {
        var machine = SessionMachine(
            script: SessionScript(steps: [try Self.await("", timeout: 2, optional: true), try Self.write("AA")]),
            timeZone: Self.utc
        )
        let timer = try #require(Self.timer(machine.start(now: Self.now)))
        #expect(Self.writtenBytes(machine.handle(.timer(timer.id), now: Self.now)) == [[0xAA]])
    }

    @Test func disconnectMidDownloadFailsAndPersistsNothing() throws {
        var machine = SessionMachine(
            script: SessionScript(steps: [try Self.write("01 01"), try Self.await("06")], persist: ["x"]),
            timeZone: Self.utc
        )
        _ = machine.start(now: Self.now)
        let actions = machine.handle(.disconnected, now: Self.now)
        #expect(actions.count == 1)
        #expect(!actions.contains { if case .finished = $0 { true } else { false } })
        #expect(machine.handle(Self.value(Self.racp, "06 00 01 01"), now: Self.now).isEmpty)
    }

    @Test func failedWriteFailsTheSessionButAFailedOptionalReadDoesNot() throws {
        var machine = SessionMachine(
            script: SessionScript(steps: [
                .read(SessionStep.Read(characteristic: BluetoothUUID(0x2A2B), optional: true)), try Self.write("01"),
            ]),
            timeZone: Self.utc
        )
        let read = try #require(Self.id(machine.start(now: Self.now)))
        let afterRead = machine.handle(.failed(action: read, message: "NotPermitted"), now: Self.now)
        #expect(Self.writtenBytes(afterRead) == [[0x01]])
        let write = try #require(Self.id(afterRead))
        let failed = machine.handle(.failed(action: write, message: "NotPermitted"), now: Self.now)
        #expect(failed == [.failed(reason: "write 2A52 01: NotPermitted")])
    }

    @Test func aDescriptorReadAsksForEveryDescriptorOfTheCharacteristicAndCapturesTheirValues() throws {
        let features = BluetoothUUID(0x2BF3)
        let schedule = BluetoothUUID(0x2910)
        var machine = SessionMachine(
            script: SessionScript(
                steps: [
                    .read(
                        SessionStep.Read(
                            characteristic: features,
                            descriptor: schedule,
                            capture: [try SessionCapture(variable: "schedule", spec: "bytes@0")],
                            optional: true
                        )
                    ),
                    try Self.write("01"),
                ],
                persist: ["schedule"]
            ),
            timeZone: Self.utc
        )
        let started = machine.start(now: Self.now)
        let read = try #require(Self.id(started))
        #expect(started == [.readDescriptors(id: read, characteristic: features, descriptor: schedule)])
        // A read of the characteristic itself is not the descriptor's value.
        _ = machine.handle(Self.value(features, "00 02", .read), now: Self.now)
        _ = machine.handle(Self.value(schedule, "b84b0200 01000000 01000000", .read), now: Self.now)
        let written = machine.handle(.completed(action: read), now: Self.now)
        #expect(Self.writtenBytes(written) == [[0x01]])
        let end = machine.handle(.completed(action: try #require(Self.id(written))), now: Self.now)
        #expect(end == [.finished(persist: ["schedule": .bytes(hex("b84b0200 01000000 01000000"))])])
        #expect(
            SessionStep.read(SessionStep.Read(characteristic: features, descriptor: schedule)).description
                == "read 2BF3 descriptor 2910"
        )
    }

    @Test func readCapturesIntoAVariableUsedByALaterTemplate() throws {
        let clock = BluetoothUUID(0x2A2B)
        var machine = SessionMachine(
            script: SessionScript(steps: [
                .read(
                    SessionStep.Read(characteristic: clock, capture: [try SessionCapture(variable: "y", spec: "u16@0")])
                ),
                try Self.write("{y:u16be}"),
            ]),
            timeZone: Self.utc
        )
        let read = try #require(Self.id(machine.start(now: Self.now)))
        _ = machine.handle(Self.value(clock, "EA 07 0B", .read), now: Self.now)
        #expect(Self.writtenBytes(machine.handle(.completed(action: read), now: Self.now)) == [hex("07 EA")])
    }

    @Test func repeatRunsEveryIntervalUntilTheValueComes() throws {
        let loop = SessionStep.Repeat(
            steps: [try Self.write("01")],
            every: 2,
            until: .init(characteristic: Self.measurement, pattern: .any),
            timeout: 60
        )
        var machine = SessionMachine(
            script: SessionScript(steps: [.repeatUntil(loop), try Self.write("FF")]),
            timeZone: Self.utc
        )
        var actions = machine.start(now: Self.now)
        #expect(Self.timer(actions)?.seconds == 60)
        #expect(Self.writtenBytes(actions) == [[0x01]])
        actions = machine.handle(.completed(action: try #require(Self.id(actions))), now: Self.now)
        let pause = try #require(Self.timer(actions))
        #expect(pause.seconds == 2)
        actions = machine.handle(.timer(pause.id), now: Self.now)
        #expect(Self.writtenBytes(actions) == [[0x01]], "the second round")
        actions = machine.handle(Self.value(Self.measurement, "00", .notification), now: Self.now)
        #expect(Self.writtenBytes(actions) == [[0xFF]], "the value ends the loop")
    }

    @Test func branchAndSetFollowVariables() throws {
        let script = SessionScript(steps: [
            .branch(
                try SessionCondition("n < 3"),
                then: [.set(["n": .value(.integer(3)), "m": .variable("n")])],
                else: [.set(["n": .remove])]
            ),
            try Self.write("{n:u8}{m:u8}"),
        ])
        var low = SessionMachine(script: script, variables: ["n": .integer(1)], timeZone: Self.utc)
        #expect(Self.writtenBytes(low.start(now: Self.now)) == [hex("03 01")])
        var high = SessionMachine(script: script, variables: ["n": .integer(5)], timeZone: Self.utc)
        guard case .failed(let reason) = high.start(now: Self.now).first else {
            Issue.record("n was removed, so the template cannot render")
            return
        }
        #expect(reason.contains("'n' has no value"))
    }

    @Test func tellsWhenAStoredRecordDownloadStartsAndEnds() throws {
        var script = SessionScript(steps: [
            try Self.write("04 01"), try Self.await("05 00"), try Self.write("01 01"), try Self.await("06 00 01 ??"),
        ])
        script.controlPoints = [.init(characteristic: Self.racp, message: RecordAccessControlPoint.self)]
        var machine = SessionMachine(script: script, timeZone: Self.utc)
        let count = machine.start(now: Self.now)
        #expect(!count.contains(.download(.started)), "a number-of-records request downloads nothing")
        _ = machine.handle(.completed(action: try #require(Self.id(count))), now: Self.now)
        let request = machine.handle(Self.value(Self.racp, "05 00 02 00"), now: Self.now)
        #expect(Self.writtenBytes(request) == [hex("01 01")])
        #expect(request.last == .download(.started), "\(request)")
        _ = machine.handle(.completed(action: try #require(Self.id(request))), now: Self.now)
        #expect(machine.handle(Self.value(Self.measurement, "00 07 00", .notification), now: Self.now).isEmpty)
        let end = machine.handle(Self.value(Self.racp, "06 00 01 01"), now: Self.now)
        #expect(end == [.download(.ended), .finished(persist: [:])])
    }

}
