import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The shipped `ghs` profile's stored-observation download against a simulated GHS sensor: a record-number
/// cursor (RACP "greater than or equal to", filter type 01, uint32) instead of the whole history each session,
/// record numbers read from segmented values, a reset sensor read again, and never a delete.
@Suite struct GHSSessionTests {
    static let profile: DeviceProfile = {
        let loaded = DeviceProfileLoader.load(directories: [ProfileCatalogueTests.devices])
        return loaded.catalog.profiles.first { $0.id == "ghs" }!
    }()

    static let racp = BluetoothUUID(0x2A52)
    static let stored = BluetoothUUID(0x2BDD)

    /// A GHS sensor's Record Access Control Point (read-only part), as GHS 1.0 and ST's GHS server describe it:
    /// operators all (01) and greater than or equal to (03, mandatory), last record (06, optional); records sent
    /// as Stored Health Observations in segments of `segment` octets behind a Segmentation Header.
    struct Sensor {
        var records: [UInt32]
        var supportsLastRecord = true
        /// Stops sending after this many records, without a final response (the link went quiet).
        var stallAfter: Int?
        var segment = 6
        var written: [[UInt8]] = []
        var counter: UInt8 = 0

        /// Record `number`: the record number, then a numeric SpO2 observation (class 01, length 24, flags 0003,
        /// MDC 150456, Elapsed Time UTC 1 s, unit 544 %, FLOAT 97) — the profile fixture's bytes.
        static func body(_ number: UInt32) -> [UInt8] {
            withUnsafeBytes(of: number.littleEndian, Array.init)
                + (try! Hex.bytes("0118000300b84b020000fc13903200000000200261000000"))
        }

        /// The value in segments: bit 0 first, bit 1 last, bits 2–7 the rolling counter.
        mutating func segments(_ value: [UInt8]) -> [CharacteristicValue] {
            let parts = stride(from: 0, to: value.count, by: segment).map {
                Array(value[$0..<min($0 + segment, value.count)])
            }
            return parts.enumerated().map { index, part in
                let header = (index == 0 ? 0x01 : 0) | (index == parts.count - 1 ? 0x02 : 0) | counter << 2
                counter = (counter + 1) & 0x3F
                return CharacteristicValue(
                    characteristic: GHSSessionTests.stored,
                    bytes: [header] + part,
                    delivery: .notification
                )
            }
        }

        func response(_ op: UInt8, _ value: UInt8) -> CharacteristicValue {
            CharacteristicValue(
                characteristic: GHSSessionTests.racp,
                bytes: [0x06, 0x00, op, value],
                delivery: .indication
            )
        }

        mutating func answer(_ uuid: BluetoothUUID, _ request: [UInt8]) -> [CharacteristicValue] {
            guard uuid == GHSSessionTests.racp, let op = request.first else { return [] }
            written.append(request)
            let selected: [UInt32]?
            switch Array(request.dropFirst()) {
            case [0x01]: selected = records
            case [0x06] where supportsLastRecord: selected = records.max().map { [$0] } ?? []
            case let filter where filter.count == 6 && filter[0] == 0x03 && filter[1] == 0x01:
                let from = filter[2...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                selected = records.filter { $0 >= from }
            default: selected = nil
            }
            guard let selected else { return [response(op, 0x04)] }
            switch op {
            case 0x01:
                guard !selected.isEmpty else { return [response(op, 0x06)] }
                let sent = selected.prefix(stallAfter ?? selected.count)
                let values = sent.flatMap { segments(Self.body($0)) }
                return sent.count < selected.count ? values : values + [response(op, 0x01)]
            case 0x04:
                let count = withUnsafeBytes(of: UInt32(selected.count).littleEndian, Array.init)
                return [
                    CharacteristicValue(
                        characteristic: GHSSessionTests.racp,
                        bytes: [0x05, 0x00] + count,
                        delivery: .indication
                    )
                ]
            default:
                return [response(op, 0x02)]
            }
        }
    }

    /// Runs the profile's session against `sensor`; returns the outcome and the record numbers delivered.
    static func run(
        _ sensor: inout Sensor,
        variables: SessionVariables
    ) -> (
        outcome: SimulatedSession.Outcome, records: [UInt32]
    ) {
        let outcome = SimulatedSession.run(
            profile.session,
            variables: variables,
            device: "02:00:00:00:00:40",
            start: Date(timeIntervalSince1970: 1_795_519_815),
            timeZone: TimeZone(identifier: "UTC")!,
            answer: { sensor.answer($0, $1) }
        )
        let records = outcome.events.compactMap { event -> UInt32? in
            guard case .value(let value) = event.kind, value.characteristic == stored, value.bytes[0] & 0x01 != 0
            else { return nil }
            return value.bytes[1...4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        return (outcome, records)
    }

    @Test func aUserWithAConsentCodeIsSelectedOnTheUserControlPointBeforeAnythingElse() {
        let userControlPoint = BluetoothUUID(0x2A9F)
        var sensor = Sensor(records: [1])
        var consents: [[UInt8]] = []
        let outcome = SimulatedSession.run(
            Self.profile.session,
            variables: ["consentCode": .integer(1234), "userIndex": .integer(2)],
            device: "02:00:00:00:00:41",
            start: Date(timeIntervalSince1970: 1_795_519_815),
            timeZone: TimeZone(identifier: "UTC")!
        ) { uuid, bytes in
            guard uuid == userControlPoint else { return sensor.answer(uuid, bytes) }
            consents.append(bytes)
            return [CharacteristicValue(characteristic: uuid, bytes: [0x20, 0x02, 0x01], delivery: .indication)]
        }
        #expect(outcome.failure == nil)
        #expect(consents == [[0x02, 0x02, 0xD2, 0x04]], "consent: user index 2, code 1234 as uint16")
        let firstWrite = outcome.events.first { if case .written = $0.kind { true } else { false } }
        if case .written(let write) = firstWrite?.kind { #expect(write.characteristic == userControlPoint) }
        #expect(sensor.written == [[0x04, 0x01], [0x01, 0x01]], "then the download as for a single-user sensor")

        // Without a consent code nothing is written to the User Control Point.
        var single = Sensor(records: [1])
        let (plain, _) = Self.run(&single, variables: [:])
        #expect(plain.failure == nil)
        #expect(
            !plain.events.contains { event in
                if case .written(let write) = event.kind { return write.characteristic == userControlPoint }
                return false
            }
        )
    }

    @Test func firstContactCountsThenDownloadsEverythingAndKeepsTheHighestRecordNumber() {
        var sensor = Sensor(records: [1, 2, 3])
        let (outcome, records) = Self.run(&sensor, variables: [:])
        #expect(outcome.failure == nil)
        #expect(sensor.written == [[0x04, 0x01], [0x01, 0x01]])
        #expect(records == [1, 2, 3])
        #expect(
            outcome.persisted == ["lastRecord": .integer(3)],
            "read from first segments only: a continuation segment carries observation bytes at that offset"
        )
        #expect(outcome.progress == [[1, 3], [2, 3], [3, 3]], "each record counted once, not each segment")
    }

    @Test func laterContactAsksOnlyForRecordsAfterTheCursor() {
        var sensor = Sensor(records: [1, 2, 3, 4, 5])
        let (outcome, records) = Self.run(&sensor, variables: ["lastRecord": .integer(3)])
        // last record (the reset probe), number of records >= 4, records >= 4 (uint32 record numbers)
        #expect(
            sensor.written == [
                [0x01, 0x06], [0x04, 0x03, 0x01, 0x04, 0x00, 0x00, 0x00], [0x01, 0x03, 0x01, 0x04, 0x00, 0x00, 0x00],
            ]
        )
        #expect(records == [5, 4, 5], "the probe's record 5, then 4 and 5 (the store drops the repeat)")
        #expect(outcome.persisted == ["lastRecord": .integer(5)])
    }

    @Test func nothingNewIsCountedAndNotRequested() {
        var sensor = Sensor(records: [1, 2, 3])
        let (outcome, _) = Self.run(&sensor, variables: ["lastRecord": .integer(3)])
        #expect(sensor.written == [[0x01, 0x06], [0x04, 0x03, 0x01, 0x04, 0x00, 0x00, 0x00]])
        #expect(outcome.failure == nil)
        #expect(outcome.persisted == ["lastRecord": .integer(3)], "the cursor stays where it was")
    }

    @Test func aSensorThatNumbersFromOneAgainIsReadWhole() {
        var sensor = Sensor(records: [1, 2])
        let (outcome, records) = Self.run(&sensor, variables: ["lastRecord": .integer(7)])
        #expect(sensor.written == [[0x01, 0x06], [0x04, 0x01], [0x01, 0x01]])
        #expect(records == [2, 1, 2])
        #expect(outcome.persisted == ["lastRecord": .integer(2)])
    }

    @Test func anEmptiedSensorDropsTheCursor() {
        var sensor = Sensor(records: [])
        let (outcome, _) = Self.run(&sensor, variables: ["lastRecord": .integer(7)])
        #expect(sensor.written == [[0x01, 0x06], [0x04, 0x01]])
        #expect(
            outcome.persisted == ["lastRecord": SessionValue?.none],
            "the next records may be numbered from 1 again"
        )
    }

    @Test func aSensorWithoutTheOptionalLastRecordOperatorKeepsTheCursor() {
        var sensor = Sensor(records: [1, 2, 3, 4, 5], supportsLastRecord: false)
        let (outcome, records) = Self.run(&sensor, variables: ["lastRecord": .integer(3)])
        #expect(
            sensor.written == [
                [0x01, 0x06], [0x04, 0x03, 0x01, 0x04, 0x00, 0x00, 0x00], [0x01, 0x03, 0x01, 0x04, 0x00, 0x00, 0x00],
            ]
        )
        #expect(records == [4, 5])
        #expect(outcome.persisted == ["lastRecord": .integer(5)])
    }

    @Test func anInterruptedDownloadLeavesTheCursorWhereItWas() {
        var sensor = Sensor(records: [1, 2, 3, 4, 5], stallAfter: 1)
        let (outcome, records) = Self.run(&sensor, variables: ["lastRecord": .integer(3)])
        #expect(records == [5, 4])
        #expect(outcome.failure != nil, "no final response within the timeout")
        #expect(outcome.persisted.isEmpty, "a failed session saves nothing, so records 4 and 5 are asked for again")
    }

    @Test func eachUserOfAMultiUserSensorKeepsItsOwnCursor() {
        let userControlPoint = BluetoothUUID(0x2A9F)
        // One sensor, two UDS users; record numbers run across the device (user 1: 1, 2, 5; user 2: 3, 4).
        var byUser: [UInt8: [UInt32]] = [1: [1, 2, 5], 2: [3, 4]]
        var kept: SessionVariables = [:]
        func visit(user: UInt8) -> (outcome: SimulatedSession.Outcome, sensor: Sensor) {
            var sensor = Sensor(records: [])
            var variables = kept
            variables["consentCode"] = .integer(1234)
            variables["userIndex"] = .integer(Int(user))
            let outcome = SimulatedSession.run(
                Self.profile.session,
                variables: variables,
                device: "02:00:00:00:00:42",
                start: Date(timeIntervalSince1970: 1_795_519_815),
                timeZone: TimeZone(identifier: "UTC")!
            ) { uuid, bytes in
                guard uuid == userControlPoint else { return sensor.answer(uuid, bytes) }
                // After consent the RACP serves that user's records only.
                sensor.records = byUser[bytes[1]] ?? []
                return [CharacteristicValue(characteristic: uuid, bytes: [0x20, 0x02, 0x01], delivery: .indication)]
            }
            for (name, value) in outcome.persisted { kept[name] = value }
            return (outcome, sensor)
        }

        let first = visit(user: 1)
        #expect(first.outcome.failure == nil)
        #expect(first.outcome.persisted == ["lastRecord@1": .integer(5)])
        let second = visit(user: 2)
        #expect(
            second.sensor.written == [[0x04, 0x01], [0x01, 0x01]],
            "user 2's first contact reads all of user 2's records, not from user 1's cursor"
        )
        #expect(second.outcome.persisted == ["lastRecord@2": .integer(4)])
        byUser[1]?.append(6)
        let third = visit(user: 1)
        #expect(
            third.sensor.written == [
                [0x01, 0x06], [0x04, 0x03, 0x01, 0x06, 0x00, 0x00, 0x00], [0x01, 0x03, 0x01, 0x06, 0x00, 0x00, 0x00],
            ],
            "user 1 asks only for what came after its own record 5 (user 2's cursor 4 would ask for 5 again)"
        )
        #expect(kept["lastRecord@1"] == .integer(6))
        #expect(kept["lastRecord@2"] == .integer(4))
        #expect(kept["lastRecord"] == nil, "no device-wide cursor once users are selected")
    }

    @Test func neverDeletesStoredRecords() {
        for variables: SessionVariables in [[:], ["lastRecord": .integer(2)], ["lastRecord": .integer(9)]] {
            var sensor = Sensor(records: [1, 2, 3])
            _ = Self.run(&sensor, variables: variables)
            #expect(!sensor.written.contains { $0.first == 0x02 })
        }
    }
}
