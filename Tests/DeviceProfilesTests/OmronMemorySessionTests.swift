import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import TestSupport
import Testing

/// The shipped Omron memory-map profiles' sessions against a simulated cuff (``OmronMemoryDevice``): the first
/// contact reads every slot, later ones only what was measured since, a ring that went round or a reset device is
/// read in full again, and nothing is ever written to the cuff's memory.
@Suite struct OmronMemorySessionTests {
    static let catalog = DeviceProfileLoader.load(directories: [ProfileCatalogueTests.devices]).catalog
    static func profile(_ id: String) -> DeviceProfile { catalog.profile(id: id)! }
    static let key = try! Hex.bytes("deadbeaf12341234deadbeaf12341234")
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let utc = TimeZone(identifier: "UTC")!

    /// A 16-byte record of the HEM-7361T layout: `systolic`/`diastolic`/`pulse` on 2026-06-`day` 07:`minute`:00.
    static func record(systolic: Int, diastolic: Int, pulse: Int, day: Int, minute: Int) -> [UInt8] {
        let flags1 = 7 | day << 5 | 6 << 10
        let flags2 = minute << 6
        return [
            UInt8(systolic - 25), UInt8(diastolic), UInt8(pulse), 26, UInt8(flags1 & 0xFF), UInt8(flags1 >> 8),
            UInt8(flags2 & 0xFF), UInt8(flags2 >> 8), 0, 0, 0, 0, 0, 0, 0, 0,
        ]
    }

    struct Run {
        var outcome: SimulatedSession.Outcome
        var device: OmronMemoryDevice
        var variables: SessionVariables
        /// The read commands' (address, count).
        var reads: [(Int, Int)] {
            device.commands.filter { $0[1] == 0x01 && $0[2] == 0x00 }.map { (Int($0[3]) << 8 | Int($0[4]), Int($0[5])) }
        }
    }

    static func run(_ profile: DeviceProfile, _ device: OmronMemoryDevice, variables: SessionVariables = [:]) -> Run {
        var device = device
        let outcome = SimulatedSession.run(
            profile.session,
            variables: variables,
            device: "02:00:00:00:00:61",
            start: start,
            timeZone: utc
        ) { uuid, bytes in device.answer(uuid, bytes) }
        var kept = variables
        for (name, value) in outcome.persisted { kept[name] = value }
        // Commands are recorded by the simulator; a fresh copy keeps only this run's.
        return Run(outcome: outcome, device: device, variables: kept)
    }

    static func device(_ profile: DeviceProfile, records: Int, user: Int = 0) -> OmronMemoryDevice {
        var device = OmronMemoryDevice(map: profile.omron!, key: key)
        for index in 0..<records {
            device.measure(
                user: user,
                record: record(
                    systolic: 120 + index % 30,
                    diastolic: 80,
                    pulse: 60,
                    day: 1 + index % 28,
                    minute: index % 60
                )
            )
        }
        return device
    }

    /// What the pipeline's record reader makes of a run's received values, all together.
    static func records(of run: Run, map: OmronMemoryMap) -> StreamedRecords {
        var reader = OmronRecordReader(map: map)
        var all = StreamedRecords()
        for event in run.outcome.events {
            guard case .value(let value) = event.kind else { continue }
            let context = SampleContext(
                receivedAt: start,
                timeZone: utc,
                source: SampleSource(kind: .device, characteristic: value.characteristic),
                payload: value.bytes
            )
            let read = reader.read(value, context: context)
            all.samples += read.samples
            all.records += read.records
            all.problems += read.problems
        }
        return all
    }

    @Test func theShippedProfilesLoadWithTheirMemoryMaps() throws {
        let ids = [
            "omron-hem-7150t", "omron-hem-7155t", "omron-hem-7342t", "omron-hem-7361t", "omron-hem-7322t",
            "omron-hem-7600t", "omron-hem-7530t", "omron-hem-7280t", "omron-hem-7144t2",
        ]
        for id in ids {
            let profile = try #require(Self.catalog.profile(id: id), "\(id)")
            let map = try #require(profile.omron)
            #expect(profile.session.steps.last == .omronMemoryMap(map))
            #expect(Set(profile.session.persist) == Set(map.persistedVariables))
            #expect(profile.connectionPlan.subscribe.count == 5, "four receive channels and the unlock characteristic")
            #expect(map.unlockKey == Self.key)
        }
    }

    @Test func aOneChannelCuffIsReadWithoutAnUnlockItsPiecesJoinedInOrder() throws {
        let profile = Self.profile("omron-hem-7380t1")
        let map = try #require(profile.omron)
        #expect(map.channels.unlock == nil && map.unlockKey == nil, "bonded by the operating system only")
        #expect(profile.connectionPlan.subscribe.count == 1, "one receive channel")
        let run = Self.run(profile, Self.device(profile, records: 3, user: 1))
        #expect(run.outcome.failure == nil)
        #expect(run.reads.count == 200, "no index pointers: every slot of both users, one 16-byte record per read")
        #expect(
            !run.outcome.events.contains { event in
                guard case .written(let write) = event.kind else { return false }
                return write.characteristic == BluetoothUUID("b305b680-aee7-11e1-a730-0002a5d5c51b")
            }
        )
        // Each read answer is two pieces on the one receive channel, joined in the order they came.
        let read = Self.records(of: run, map: map)
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(read.records == 3, "user 2's three records; the 197 empty slots give nothing")
    }

    @Test func aTokenUnlockOffersFourBytesAndReadsAfterTheirEcho() throws {
        let profile = Self.profile("omron-hem-7142t2")
        let map = try #require(profile.omron)
        #expect(map.unlockMode == .token && map.channels.tx.count == 1 && map.channels.unlock != nil)
        var device = OmronMemoryDevice(map: map, key: [])
        device.measure(user: 0, record: try Hex.bytes("6558541a331ade1800004c00ba00"))
        let run = Self.run(profile, device)
        #expect(run.outcome.failure == nil)
        let unlocks = run.outcome.events.compactMap { event -> [UInt8]? in
            guard case .written(let write) = event.kind, write.characteristic == map.channels.unlock else { return nil }
            return write.bytes
        }
        #expect(unlocks == [[0x11, 0x43, 0x42, 0x52, 0x47] + Array(repeating: 0, count: 15)])
        #expect(run.reads.map(\.1).reduce(0, +) == 14 * 14, "every slot, three 14-byte records per read at most")
        #expect(run.reads.allSatisfy { $0.1 <= 44 })
    }

    @Test func firstContactReadsEverySlotOfEveryUserAndKeepsACursorPerUser() throws {
        let profile = Self.profile("omron-hem-7361t")
        let run = Self.run(profile, Self.device(profile, records: 5))
        #expect(run.outcome.failure == nil)
        #expect(run.reads.count == 1 + 200, "the index block, then 100 slots of each user, one 16-byte record per read")
        #expect(run.reads.first! == (0x0010, 0x10))
        #expect(run.variables["omronNext1"] == .integer(5))
        #expect(
            run.variables["omronLast1"]
                == .bytes(Self.record(systolic: 124, diastolic: 80, pulse: 60, day: 5, minute: 4))
        )
        #expect(run.variables["omronNext2"] == .integer(0))
        #expect(run.variables["omronLast2"] == .bytes(Array(repeating: 0xFF, count: 16)), "an empty ring's last slot")
        let kinds = Set(run.device.commands.map { [$0[1], $0[2]] })
        #expect(kinds == [[0x00, 0x00], [0x01, 0x00], [0x0F, 0x00]], "start, reads, end: never a write (01 C0)")
    }

    @Test func aLaterContactReadsOnlyTheRecordsMeasuredSince() throws {
        let profile = Self.profile("omron-hem-7361t")
        let first = Self.run(profile, Self.device(profile, records: 5))
        var device = first.device
        device.measure(user: 0, record: Self.record(systolic: 131, diastolic: 85, pulse: 70, day: 9, minute: 10))
        device.measure(user: 0, record: Self.record(systolic: 132, diastolic: 86, pulse: 71, day: 9, minute: 11))
        let before = device.commands.count
        let second = Self.run(profile, device, variables: first.variables)
        #expect(second.outcome.failure == nil)
        let reads = second.reads.suffix(from: second.reads.count - (second.device.commands.count - before - 2))
        let addresses = reads.map(\.0)
        // The index block; user 1: the record downloaded last (slot 4), then slots 5 and 6; user 2: its check only.
        #expect(addresses == [0x0010, 0x0098 + 4 * 16, 0x0098 + 5 * 16, 0x0098 + 6 * 16, 0x06D8 + 99 * 16])
        #expect(second.variables["omronNext1"] == .integer(7))
        // Nothing new: only the checks.
        let third = Self.run(profile, second.device, variables: second.variables)
        #expect(third.device.commands.count - second.device.commands.count == 2 + 3, "start, index, two checks, end")
    }

    @Test func theCursorFollowsTheRingRoundItsEnd() throws {
        let profile = Self.profile("omron-hem-7361t")
        let first = Self.run(profile, Self.device(profile, records: 98))
        var device = first.device
        for minute in 0..<4 {
            device.measure(
                user: 0,
                record: Self.record(systolic: 140, diastolic: 90, pulse: 75, day: 20, minute: minute)
            )
        }
        let before = device.commands.count
        let second = Self.run(profile, device, variables: first.variables)
        let slots = second.device.commands[before...].filter { $0[1] == 0x01 }.map { Int($0[3]) << 8 | Int($0[4]) }
            .filter { $0 >= 0x0098 && $0 < 0x06D8 }.map { ($0 - 0x0098) / 16 }
        #expect(slots == [97, 98, 99, 0, 1], "the check of slot 97, then 98, 99 and, past the end, 0 and 1")
        #expect(second.variables["omronNext1"] == .integer(2))
    }

    @Test func aRingThatWentRoundOrAResetDeviceIsReadInFullAgain() throws {
        let profile = Self.profile("omron-hem-7361t")
        let first = Self.run(profile, Self.device(profile, records: 5))
        // 100 more records: the pointer is back at slot 5, but slot 4 holds another record now.
        var device = first.device
        for index in 0..<100 {
            device.measure(
                user: 0,
                record: Self.record(systolic: 150, diastolic: 95, pulse: 80, day: 21, minute: index % 60)
            )
        }
        let before = device.commands.count
        let second = Self.run(profile, device, variables: first.variables)
        let userOneReads = second.device.commands[before...].filter { $0[1] == 0x01 }
            .map { Int($0[3]) << 8 | Int($0[4]) }.filter { $0 >= 0x0098 && $0 < 0x06D8 }
        #expect(userOneReads.count == 1 + 100, "the check, then every slot")
        #expect(second.outcome.failure == nil)
    }

    @Test func aWrongKeyFailsTheSessionSayingHowToPair() throws {
        let profile = Self.profile("omron-hem-7361t")
        var device = Self.device(profile, records: 1)
        device.key = Array(repeating: 0x11, count: 16)
        let run = Self.run(profile, device)
        let failure = try #require(run.outcome.failure)
        #expect(failure.contains("refused the unlock key (answer 81 0F)"))
        #expect(failure.contains("omronKey"))
        #expect(run.outcome.persisted.isEmpty, "a failed session saves no cursor")
        // The device's own key, from its session variables, is used instead of the profile's.
        let own = Self.run(profile, device, variables: ["omronKey": .bytes(device.key)])
        #expect(own.outcome.failure == nil)
    }

    @Test func anUnansweredRequestIsSentAgainThenTheSessionFails() throws {
        let profile = Self.profile("omron-hem-7361t")
        var device = Self.device(profile, records: 1)
        device.dropAnswers = 2
        let retried = Self.run(profile, device)
        #expect(retried.outcome.failure == nil, "two lost answers are within the three retries")
        device.dropAnswers = 10
        let failed = Self.run(profile, device)
        let failure = try #require(failed.outcome.failure)
        #expect(failure == "no answer to the start of transmission after 4 attempts of 5 s")
        #expect(failed.outcome.persisted.isEmpty)
    }

    /// openScale's HBF test record (pull request #1463, assembled from Omron's field description): 72.40 kg, 23.5 %
    /// fat, BMI 23.7, 1520 kcal, 2024-03-17 07:45:12; `extra` zero bytes make the 48-byte record of the HBF-702T.
    static func hbfRecord(extra: Int = 0) throws -> [UInt8] {
        try Hex.bytes("00003ac85f024e183b6d223389cc0000 00000000000000000000 5a80 00000000")
            + Array(repeating: 0, count: extra)
    }

    /// openScale reads at most 32 bytes per request and nothing published shows a longer read working: the
    /// HBF-702T's 48-byte records are read in two requests (32 + 16 bytes) and joined.
    @Test(arguments: [("omron-hbf-222t", 32, [32]), ("omron-hbf-702t", 48, [32, 16])])
    func anHBFScaleIsReadWholeAndItsRecordGivesWeightFatBMIAndBMRForItsUserSlot(
        id: String,
        size: Int,
        parts: [Int]
    ) throws {
        let profile = Self.profile(id)
        let map = try #require(profile.omron)
        #expect(map.users.count == 4 && map.users.allSatisfy { $0.count == 30 } && map.recordSize == size)
        var device = OmronMemoryDevice(map: map, key: Self.key)
        device.measure(user: 2, record: try Self.hbfRecord(extra: size - 32))
        let run = Self.run(profile, device)
        #expect(run.outcome.failure == nil)
        #expect(run.reads.count == 120 * parts.count, "no index pointers: all 4 users × 30 slots, each in its parts")
        #expect(run.reads.map(\.1) == Array(Array(repeating: parts, count: 120).joined()))
        #expect(run.reads.allSatisfy { $0.1 <= 32 }, "never more than openScale's 32 bytes per read")
        let read = Self.records(of: run, map: map)
        #expect(read.problems.isEmpty, "\(read.problems)")
        let samples = read.samples
        let values = Dictionary(uniqueKeysWithValues: samples.map { ($0.type, $0.value) })
        #expect(
            values == [.bodyMass: 72.4, .bodyFatPercentage: 23.5, .bodyMassIndex: 23.7, .basalEnergyBurned: 1520],
            "weight in 50 g, fat and BMI in tenths, BMR in kcal; the 119 empty slots give nothing"
        )
        #expect(samples.allSatisfy { $0.metadata["userID"] == "3" })
        #expect(
            samples.first?.deviceTime == DateTime(year: 2024, month: 3, day: 17, hours: 7, minutes: 45, seconds: 12)
        )
        // The measures without a quantity type ride on the body-fat sample: 31.2 % skeletal muscle, body age 34,
        // visceral fat 8 raw (whole levels on the 32-byte models, half levels on the 702T).
        let fat = try #require(samples.first { $0.type == .bodyFatPercentage })
        #expect(fat.metadata["omron.skeletalMusclePercent"] == "31.2")
        #expect(fat.metadata["omron.bodyAge"] == "34")
        #expect(fat.metadata["omron.visceralFatLevel"] == (size == 48 ? "4" : "8"))
        #expect(samples.filter { $0.type != .bodyFatPercentage }.allSatisfy { $0.metadata["omron.bodyAge"] == nil })
    }

    @Test func withoutBodyFatTheExtraMeasuresRideOnTheWeightAndTheBCM500HasNoBodyAge() throws {
        var record = try Self.hbfRecord()
        record[2] = 0  // body fat (bits 6-15 of bytes 2-3) cleared, visceral fat (bits 0-5) kept
        record[3] &= 0x3F
        for (id, bodyAge) in [("omron-hbf-222t", "34"), ("omron-bcm-500", nil)] {
            let profile = Self.profile(id)
            let map = try #require(profile.omron)
            var device = OmronMemoryDevice(map: map, key: Self.key)
            device.measure(user: 0, record: record)
            let read = Self.records(of: Self.run(profile, device), map: map)
            #expect(read.problems.isEmpty, "\(read.problems)")
            #expect(!read.samples.contains { $0.type == .bodyFatPercentage })
            let weight = try #require(read.samples.first { $0.type == .bodyMass })
            #expect(weight.metadata["omron.skeletalMusclePercent"] == "31.2", "\(id)")
            #expect(weight.metadata["omron.visceralFatLevel"] == "8", "\(id)")
            #expect(weight.metadata["omron.bodyAge"] == bodyAge, "\(id)")
        }
    }

    @Test func aRecordPartThatDoesNotFollowTheOneBeforeIsAProblemNotASample() throws {
        let map = try #require(Self.profile("omron-hbf-702t").omron)
        var reader = OmronRecordReader(map: map)
        let record = try Self.hbfRecord(extra: 16)
        // The second part (16 bytes from byte 32) of slot 0 with no first part before it.
        let orphan = OmronResponse.readPacket(address: map.address(user: 0, slot: 0) + 32, data: Array(record[32...]))
        var problems: [String] = []
        var samples = 0
        for (index, piece) in OmronPacket.pieces(orphan).enumerated() {
            let value = CharacteristicValue(
                characteristic: map.channels.rx[index],
                bytes: piece,
                delivery: .notification
            )
            let context = SampleContext(
                receivedAt: Self.start,
                timeZone: Self.utc,
                source: SampleSource(kind: .device, characteristic: value.characteristic),
                payload: value.bytes
            )
            let out = reader.read(value, context: context)
            problems += out.problems
            samples += out.samples.count
        }
        #expect(samples == 0)
        #expect(problems.count == 1 && problems[0].contains("does not follow"), "\(problems)")
    }

    @Test func bigEndianModelsReadSeveralRecordsPerBlock() throws {
        let profile = Self.profile("omron-hem-7322t")
        var device = OmronMemoryDevice(map: profile.omron!, key: Self.key)
        device.measure(user: 1, record: try Hex.bytes("5b781a4819d71b42000014006996"))
        let run = Self.run(profile, device)
        #expect(run.outcome.failure == nil)
        // 100 records of 14 bytes, 4 per 56-byte read: user 1 from slot 0 in 25 reads; user 2 oldest first from
        // its pointer (slot 1): 1…96 in 24 reads, 97…99, then 0; plus the index block.
        #expect(run.reads.count == 1 + 25 + 26)
        #expect(run.reads.dropFirst().allSatisfy { $0.1 % 14 == 0 && $0.1 <= 56 })
        #expect(run.reads.last! == (0x0824, 14))
        #expect(run.variables["omronNext2"] == .integer(1))
    }
}

/// The `omron` section's errors name the JSON path and what is wrong.
@Suite struct OmronMemoryMapProfileErrorTests {
    static func profile(omron: String) -> String {
        """
        {"id": "x", "name": "x", "match": {"name": "HEM-X*"}, "link": "gatt", "omron": \(omron)}
        """
    }

    static let layout = """
        {"fields": [{"name": "systolic", "at": 0, "type": "u8"}, {"name": "year", "at": 1, "type": "u8"},
        {"name": "month", "at": 2, "type": "u8"}, {"name": "day", "at": 3, "type": "u8"},
        {"name": "hour", "at": 4, "type": "u8"}, {"name": "minute", "at": 5, "type": "u8"},
        {"name": "second", "at": 6, "type": "u8"}],
        "samples": [{"type": "bloodPressureSystolic", "field": "systolic", "unit": "mmHg"}]}
        """

    static func map(_ extra: String, layout: String = layout) -> String {
        profile(
            omron:
                #"{"model": "HEM-X", "users": [{"start": "0x0098", "count": 10}], "recordSize": 8, "layout": \#(layout)\#(extra)}"#
        )
    }

    @Test func aMinimalSectionLoads() throws {
        let profile = try DeviceProfile(json: Self.map(""))
        #expect(profile.omron?.recordsPerRead == 1)
        #expect(profile.omron?.indexPointers == nil)
        #expect(profile.session.persist == ["omronNext1", "omronLast1"])
    }

    @Test(
        "errors name the field",
        arguments: [
            (#", "unlockKey": "0011""#, "omron.unlockKey", "expected 16 bytes in hex"),
            (#", "blockSize": 0"#, "omron.blockSize", "expected 1…240"),
            (#", "retries": 11"#, "omron.retries", "expected 0…10"),
            (
                #", "indexPointers": {"address": 16, "size": 8, "users": []}"#, "omron.indexPointers.users",
                "give one pointer per user area (1)"
            ),
            (
                #", "indexPointers": {"address": 16, "size": 8, "users": [{"at": 7}]}"#,
                "omron.indexPointers.users[0].at",
                "expected 0…6"
            ),
            (
                #", "indexPointers": {"address": 16, "size": 8, "users": [{"at": 0, "points": "first"}]}"#,
                "omron.indexPointers.users[0].points", "'first' is not next or last"
            ),
            (#", "colour": 1"#, "omron.colour", "unknown key"),
        ]
    )
    func errorsNameTheField(extra: String, field: String, message: String) {
        #expect {
            try DeviceProfile(json: Self.map(extra))
        } throws: { error in
            guard let error = error as? DeviceProfileError else { return false }
            return error.field == field && error.message.contains(message)
        }
    }

    @Test func layoutErrorsNameTheField() {
        let missingTime =
            #"{"fields": [{"name": "systolic", "at": 0, "type": "u8"}], "samples": [{"type": "bloodPressureSystolic", "field": "systolic", "unit": "mmHg"}]}"#
        #expect {
            try DeviceProfile(json: Self.map("", layout: missingTime))
        } throws: { error in
            (error as? DeviceProfileError)?.description
                == "omron.layout: fields used but not defined: year, month, day, hour, minute, second"
        }
        let badBits = Self.layout.replacingOccurrences(
            of: #""at": 0, "type": "u8""#,
            with: #""at": 0, "type": "u8", "bits": "3-9""#
        )
        #expect {
            try DeviceProfile(json: Self.map("", layout: badBits))
        } throws: { error in
            (error as? DeviceProfileError)?.field == "omron.layout.fields[0].bits"
        }
        let zeroScale = Self.layout.replacingOccurrences(
            of: #""at": 0, "type": "u8""#,
            with: #""at": 0, "type": "u8", "scale": 0"#
        )
        #expect {
            try DeviceProfile(json: Self.map("", layout: zeroScale))
        } throws: { error in
            (error as? DeviceProfileError)?.description
                == "omron.layout.fields[0].scale: a scale of 0 makes every value 0"
        }
        let badUnit = Self.layout.replacingOccurrences(of: #""unit": "mmHg""#, with: #""unit": "kg""#)
        #expect {
            try DeviceProfile(json: Self.map("", layout: badUnit))
        } throws: { error in
            (error as? DeviceProfileError)?.description
                == "omron.layout.samples[0].unit: 'kg' is not a unit of systolic blood pressure"
        }
        let tooLong = Self.layout.replacingOccurrences(
            of: #""name": "second", "at": 6"#,
            with: #""name": "second", "at": 9"#
        )
        #expect {
            try DeviceProfile(json: Self.map("", layout: tooLong))
        } throws: { error in
            (error as? DeviceProfileError)?.description
                == "omron.layout: the fields read 10 bytes, more than the record size 8"
        }
    }
}
