import BridgeCore
import BridgeFoundation
import DeviceProfiles
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The shipped `omron-blesmart-option-service` profile's session against a simulated cuff that answers the Option
/// Service's Record Access Control Point as Stanford Spezi's SpeziOmron documents it (0x10 → 0x11 0x00 latest
/// sequence number, filter type 0x04, records on 2A35): everything on first contact, only the new records later,
/// everything again after a reset, never a delete.
@Suite struct OmronOptionServiceSessionTests {
    static let profile = DeviceProfileLoader.load(directories: [ProfileCatalogueTests.devices]).catalog
        .profile(id: "omron-blesmart-option-service")!
    static let racp = BluetoothUUID(0x2A52)
    static let measurement = BluetoothUUID(0x2A35)

    /// A cuff with stored records numbered by sequence number.
    struct Cuff {
        var sequences: [Int]
        var requests: [[UInt8]] = []

        func record(_ sequence: Int) -> CharacteristicValue {
            // flags 0x02 (time stamp) | 120/80/93 mmHg SFLOAT | 2026-06-15 07:mm:00
            let minute = UInt8(sequence % 60)
            return CharacteristicValue(
                characteristic: OmronOptionServiceSessionTests.measurement,
                bytes: [0x02, 120, 0, 80, 0, 93, 0, 0xEA, 0x07, 6, 15, 7, minute, 0],
                delivery: .indication
            )
        }

        func response(_ bytes: [UInt8]) -> CharacteristicValue {
            CharacteristicValue(
                characteristic: OmronOptionServiceSessionTests.racp,
                bytes: bytes,
                delivery: .notification
            )
        }

        mutating func answer(_ uuid: BluetoothUUID, _ bytes: [UInt8]) -> [CharacteristicValue] {
            guard uuid == OmronOptionServiceSessionTests.racp else { return [] }
            requests.append(bytes)
            let latest = sequences.max() ?? 0
            switch bytes {
            case [0x10, 0x00]:
                return [response([0x11, 0x00, UInt8(latest & 0xFF), UInt8(latest >> 8)])]
            case [0x01, 0x01]:
                return sequences.map(record) + [response([0x06, 0x00, 0x01, sequences.isEmpty ? 0x06 : 0x01])]
            case _ where bytes.count == 5 && bytes[0...2] == [0x01, 0x03, 0x04]:
                let from = Int(bytes[3]) | Int(bytes[4]) << 8
                let found = sequences.filter { $0 >= from }
                return found.map(record) + [response([0x06, 0x00, 0x01, found.isEmpty ? 0x06 : 0x01])]
            default:
                return [response([0x06, 0x00, bytes.first ?? 0, 0x02])]  // op code not supported
            }
        }
    }

    static func run(_ cuff: inout Cuff, variables: SessionVariables) -> SimulatedSession.Outcome {
        var simulated = cuff
        let outcome = SimulatedSession.run(
            profile.session,
            variables: variables,
            device: "02:00:00:00:00:0E",
            start: Date(timeIntervalSince1970: 1_781_503_200),
            timeZone: TimeZone(identifier: "UTC")!
        ) { uuid, bytes in simulated.answer(uuid, bytes) }
        cuff = simulated
        return outcome
    }

    static func records(_ outcome: SimulatedSession.Outcome) -> [Int] {
        outcome.events.compactMap { event in
            guard case .value(let value) = event.kind, value.characteristic == measurement else { return nil }
            return Int(value.bytes[12])
        }
    }

    @Test func firstContactDownloadsEveryRecordThenOnlyTheNewOnes() throws {
        var cuff = Cuff(sequences: [1, 2, 3])
        let first = Self.run(&cuff, variables: [:])
        #expect(first.failure == nil)
        #expect(cuff.requests == [[0x10, 0x00], [0x01, 0x01]])
        #expect(Self.records(first) == [1, 2, 3])
        #expect(first.persisted["lastSequence"] == .some(.integer(3)))
        let kept: SessionVariables = ["lastSequence": .integer(3)]

        cuff.sequences += [4, 5]
        cuff.requests = []
        let second = Self.run(&cuff, variables: kept)
        #expect(cuff.requests == [[0x10, 0x00], [0x01, 0x03, 0x04, 0x04, 0x00]], "records >= 4, filter type 04")
        #expect(Self.records(second) == [4, 5])
        #expect(second.persisted["lastSequence"] == .some(.integer(5)))

        // Nothing new: only the question for the latest sequence number.
        cuff.requests = []
        let third = Self.run(&cuff, variables: ["lastSequence": .integer(5)])
        #expect(cuff.requests == [[0x10, 0x00]])
        #expect(Self.records(third).isEmpty)
        #expect(third.failure == nil)
    }

    @Test func aCuffThatWasResetIsDownloadedAgainAndNothingIsEverDeleted() throws {
        var cuff = Cuff(sequences: [1, 2])
        let outcome = Self.run(&cuff, variables: ["lastSequence": .integer(40)])
        #expect(cuff.requests == [[0x10, 0x00], [0x01, 0x01]], "latest 2 < cursor 40: everything again")
        #expect(Self.records(outcome) == [1, 2])
        #expect(outcome.persisted["lastSequence"] == .some(.integer(2)))
        #expect(!cuff.requests.contains { $0.first == 0x02 }, "op code 02 (delete) is never written")
    }

    @Test func theCurrentTimeHandshakeComesFirst() throws {
        var cuff = Cuff(sequences: [1])
        let outcome = Self.run(&cuff, variables: [:])
        let writes = outcome.events.compactMap { event -> BluetoothUUID? in
            guard case .written(let write) = event.kind else { return nil }
            return write.characteristic
        }
        #expect(writes == [BluetoothUUID(0x2A2B), Self.racp, Self.racp])
    }
}
