import BridgeCore
import BridgeFoundation
import DeviceProfiles
import DeviceSessions
import Foundation
import GATTDecoding
import SampleIngest
import TestSupport
import Testing

/// Frame profiles through the real pipeline (a synthetic recording replayed by ``ProfileFixtureRunner``): merges,
/// user slots, device times, LO/HI, broadcast Manufacturer Data, and the fixture diff. Plus every shipped
/// profile's own fixtures.
@Suite struct ProfileFixtureTests {
    /// A scale in the frame language: a checksummed weight frame (stable bit, unit bits, user, sequence, time)
    /// that merges with an impedance frame of the same sequence number.
    static let scale = """
        {"id": "generic-frame-scale", "name": "Generic frame scale (test)", "link": "gatt",
         "match": {"name": "GENSCALE*", "priority": 40},
         "measurementRange": {"bodyMass": {"low": 5, "high": 180, "unit": "kg"}},
         "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": [
           {"name": "weight", "select": {"prefix": "10", "length": 13}, "checksum": {"kind": "sum8"},
            "fields": [{"name": "stable", "at": 1, "type": "u8", "bits": "0"},
                       {"name": "unit", "at": 1, "type": "u8", "bits": "4-5", "lookup": {"0": "kg", "1": "lb"}},
                       {"name": "weight", "at": 2, "type": "u16le", "scale": 0.01, "outOfRange": {"high": [65534]}},
                       {"name": "user", "at": 4, "type": "u8"}, {"name": "seq", "at": 5, "type": "u8"},
                       {"name": "when", "at": 6, "type": "ymdhms"}],
            "final": ["stable"], "time": "when", "user": "user",
            "samples": [{"type": "bodyMass", "field": "weight", "unitField": "unit"},
                        {"type": "bodyImpedance", "field": "impedance.resistance", "unit": "Ohm"}],
            "merge": {"with": "impedance", "window": 5, "by": "seq"}},
           {"name": "impedance", "select": {"prefix": "20"},
            "fields": [{"name": "seq", "at": 1, "type": "u8"},
                       {"name": "resistance", "at": 2, "type": "u16le", "absent": [0]}]}]},
           {"uuid": "FFE3", "use": "write"}]}
        """
    static let stable = "10 01 43 1C 02 07 18 03 01 07 0C 00 A8"  // 72.35 kg, user 2, seq 7, 2024-03-01 07:12
    static let unstable = "10 00 43 1C 02 07 18 03 01 07 0C 00 A7"
    static let high = "10 01 FE FF 02 07 18 03 01 07 0C 00 46"
    static let pounds = "10 11 10 27 02 07 18 03 01 07 0C 00 90"  // 100.00 lb
    static let impedance = "20 07 F4 01"  // seq 7, 500 Ω

    static let broadcast = """
        {"id": "generic-frame-broadcast", "name": "Generic broadcast scale (test)", "link": "broadcast",
         "match": {"manufacturerData": [{"company": "FFFF", "prefix": "AC", "length": {"min": 4}}], "priority": 40},
         "manufacturerData": [{"company": "FFFF", "frames": [
           {"name": "reading", "select": {"prefix": "AC"},
            "fields": [{"name": "stable", "at": 1, "type": "u8"}, {"name": "weight", "at": 2, "type": "u16be", "scale": 0.1}],
            "final": ["stable"], "samples": [{"type": "bodyMass", "field": "weight", "unit": "kg"}]}]}]}
        """

    static func run(
        _ profileJSON: String,
        values: [(String, String)],
        advertisement: Advertisement? = nil,
        expect: [ProfileFixture.Expectation] = []
    ) async throws -> ProfileFixtureRunner.Result {
        let profile = try DeviceProfile(json: profileJSON)
        let fixture = ProfileFixture(
            name: "test",
            advertisement: advertisement,
            values: values.map { source, hex in
                let bytes = try! Hex.bytes(hex)
                if source.hasPrefix("mfr:") {
                    return ProfileFixture.Value(
                        source: .manufacturerData(UInt16(source.dropFirst(4), radix: 16)!),
                        bytes: bytes
                    )
                }
                return ProfileFixture.Value(source: .characteristic(BluetoothUUID(source)!), bytes: bytes)
            },
            expect: expect
        )
        return try await ProfileFixtureRunner.run(fixture, of: profile, catalog: DeviceCatalog(profiles: [profile]))
    }

    static func kg(_ value: Double) -> ProfileFixture.Expectation {
        ProfileFixture.Expectation(type: .bodyMass, value: value, unit: .kilogram)
    }

    @Test func weightMergedWithImpedanceCarriesUserTimeAndBothSamples() async throws {
        let result = try await Self.run(Self.scale, values: [("FFE1", Self.stable), ("FFE1", Self.impedance)])
        #expect(result.samples.map(\.type) == [.bodyMass, .bodyImpedance])
        let mass = try #require(result.samples.first)
        #expect(mass.value == 72.35, "stored as written, without binary noise")
        #expect(mass.metadata["userID"] == "2")
        #expect(mass.deviceTime?.description == "2024-03-01T07:12:00")
        #expect(mass.rawPayload == (try Hex.bytes(Self.stable)), "the raw payload is kept")
        #expect(result.samples.last?.value == 500)
        #expect(result.samples.last?.metadata["userID"] == "2")
    }

    @Test func impedanceBeforeWeightWithinTheWindowAlsoMerges() async throws {
        let result = try await Self.run(Self.scale, values: [("FFE1", Self.impedance), ("FFE1", Self.stable)])
        #expect(result.samples.map(\.type) == [.bodyMass, .bodyImpedance])
    }

    @Test func aMergePartnerThatNeverComesNeverLosesTheFirstFramesSamples() async throws {
        let alone = try await Self.run(Self.scale, values: [("FFE1", Self.stable)])
        #expect(alone.samples.map(\.type) == [.bodyMass])
        let otherSequence = try await Self.run(Self.scale, values: [("FFE1", Self.stable), ("FFE1", "20 08 F4 01")])
        #expect(otherSequence.samples.map(\.type) == [.bodyMass], "an impedance of another weigh-in is not merged")
    }

    @Test func anUnstableFrameIsIntermediateAndStoresNothing() async throws {
        let result = try await Self.run(Self.scale, values: [("FFE1", Self.unstable), ("FFE1", Self.impedance)])
        #expect(result.samples.isEmpty)
        #expect(result.passed)
    }

    @Test func aFinalFrameRightAfterAnIntermediateOneIsLiveSoAWrongDeviceClockIsCorrected() async throws {
        // The device says 2024-03-01; the synthetic recording is received in 2030.
        let stored = try await Self.run(Self.scale, values: [("FFE1", Self.stable)])
        #expect(stored.samples.first?.clockOffset == nil, "a stored record keeps its own time")
        let live = try await Self.run(Self.scale, values: [("FFE1", Self.unstable), ("FFE1", Self.stable)])
        let sample = try #require(live.samples.first)
        #expect(sample.clockOffset != nil, "a live reading far from its receive time corrects the clock")
        #expect(sample.deviceTime?.description == "2024-03-01T07:12:00", "the device's own stamp is kept")
    }

    @Test func aChecksumMismatchRefusesTheValueWithAWarningNamingProfileFrameAndBytes() async throws {
        let corrupted = String(Self.stable.dropLast(2)) + "A9"
        let result = try await Self.run(Self.scale, values: [("FFE1", corrupted)])
        #expect(result.samples.isEmpty)
        #expect(
            result.issues == [
                "profile generic-frame-scale: frame weight: sum8 checksum is A9, computed A8 over bytes 0…11 in "
                    + "10 01 43 1C 02 07 18 03 01 07 0C 00 A9: value refused"
            ]
        )
    }

    @Test func anOutOfRangeRawValueIsStoredAsHIAtTheProfilesLimit() async throws {
        let result = try await Self.run(Self.scale, values: [("FFE1", Self.high)])
        let sample = try #require(result.samples.first)
        #expect(sample.comparator == .greaterThan)
        #expect(sample.value == 180)
        #expect(result.issues.contains { $0.contains("stored as an out-of-range reading") })
    }

    @Test func aLookedUpUnitFieldConvertsPoundsToKilograms() async throws {
        var pounds = ProfileFixture.Expectation(
            type: .bodyMass,
            value: 100,
            unit: try #require(HealthUnit(parsing: "lb"))
        )
        pounds.userIndex = 2
        let result = try await Self.run(Self.scale, values: [("FFE1", Self.pounds)], expect: [pounds])
        #expect(result.passed, "\(result.differences)")
        #expect(abs((result.samples.first?.value ?? 0) - 45.359237) < 1e-6)
    }

    @Test func broadcastManufacturerDataIsDecodedOncePerWeighIn() async throws {
        let result = try await Self.run(
            Self.broadcast,
            values: [("mfr:FFFF", "AC 00 02 D3"), ("mfr:FFFF", "AC 01 02 D3"), ("mfr:FFFF", "AC 01 02 D3")],
            expect: [Self.kg(72.3)]
        )
        #expect(result.passed, "\(result.differences)")
        #expect(result.samples.count == 1)
    }

    /// A connected scale that repeats its final frame (no time in the frame, as the affected vendor scales).
    static func repeating(quirk: Bool = true, weighInGap: Double? = nil) -> String {
        """
        {"id": "repeating-frame-scale", "name": "Repeating scale (test)", "link": "gatt",
         "match": {"name": "REPSCALE*", "priority": 40},
         \(quirk ? #""quirks": {"finalRepeats": true},"# : "")
         \(weighInGap.map { #""tuning": {"weighInGap": \#($0)},"# } ?? "")
         "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": [
           {"name": "weight", "select": {"prefix": "AC"},
            "fields": [{"name": "stable", "at": 1, "type": "u8"}, {"name": "weight", "at": 2, "type": "u16be", "scale": 0.1}],
            "final": ["stable"], "samples": [{"type": "bodyMass", "field": "weight", "unit": "kg"}]}]}]}
        """
    }
    static let settling = ("FFE1", "AC 00 02 C0")
    static let final723 = ("FFE1", "AC 01 02 D3")  // 72.3 kg
    static let final724 = ("FFE1", "AC 01 02 D4")  // 72.4 kg

    @Test func aFinalFrameRepeatedThreeTimesIsOneReadingWithFinalRepeats() async throws {
        let values = [Self.settling, Self.final723, Self.final723, Self.final723]
        let collapsed = try await Self.run(Self.repeating(), values: values, expect: [Self.kg(72.3)])
        #expect(collapsed.passed, "\(collapsed.differences)")
        let plain = try await Self.run(Self.repeating(quirk: false), values: values)
        #expect(plain.samples.count == 3, "without the quirk every final frame is a reading")
    }

    @Test func aSecondWeighInWithTheSameWeightAfterSettlingFramesIsStoredAgain() async throws {
        let result = try await Self.run(
            Self.repeating(),
            values: [Self.settling, Self.final723, Self.final723, Self.settling, Self.final723, Self.final723],
            expect: [Self.kg(72.3), Self.kg(72.3)]
        )
        #expect(result.passed, "\(result.differences)")
    }

    @Test func aDifferentReadingBetweenTwoEqualFinalFramesKeepsAllThree() async throws {
        let result = try await Self.run(
            Self.repeating(),
            values: [Self.final723, Self.final724, Self.final723],
            expect: [Self.kg(72.3), Self.kg(72.4), Self.kg(72.3)]
        )
        #expect(result.passed, "\(result.differences)")
    }

    @Test func theSameFinalFrameAfterMoreThanTheWeighInGapIsANewReading() async throws {
        // Fixture values arrive one second apart: a 0.5 s gap makes each repetition a new weigh-in.
        let result = try await Self.run(
            Self.repeating(weighInGap: 0.5),
            values: [Self.final723, Self.final723],
            expect: [Self.kg(72.3), Self.kg(72.3)]
        )
        #expect(result.passed, "\(result.differences)")
    }

    @Test func aVendorEpochGivesTheStoredWallClockTime() async throws {
        // A clock counting from midnight China time: 763_831_800 s after it is 2024-03-15T07:30:00Z (the fixture
        // runner's zone is UTC), not 2024-03-15T15:30:00 as seconds since local midnight 2000 would read.
        let profile = """
            {"id": "china-epoch-scale", "name": "China epoch scale (test)", "link": "gatt",
             "match": {"name": "CNSCALE*", "priority": 40},
             "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": [
               {"name": "record", "select": {"prefix": "23"},
                "fields": [{"name": "when", "at": 1, "type": "epoch32le", "epoch": "2000-01-01T00:00:00+08:00"},
                           {"name": "weight", "at": 5, "type": "u16be", "scale": 0.01}],
                "time": "when", "samples": [{"type": "bodyMass", "field": "weight", "unit": "kg"}]}]}]}
            """
        var expected = Self.kg(72.35)
        expected.time = "2024-03-15T07:30:00"
        let result = try await Self.run(profile, values: [("FFE1", "23 F8 25 87 2D 1C 43")], expect: [expected])
        #expect(result.passed, "\(result.differences)")
        #expect(result.samples.first?.start == Date(timeIntervalSince1970: 1_710_487_800))
    }

    @Test func aValueOfSeveralFramesIsDecodedFrameByFrameInOrder() async throws {
        let profile = Self.repeating(quirk: false).replacingOccurrences(
            of: #""use": "notify","#,
            with: #""use": "notify", "frameLength": 4,"#
        )
        // Settling, 72.3, 72.4, 72.3 again and a 2-byte tail: three readings in order, the tail reported.
        let result = try await Self.run(
            profile,
            values: [("FFE1", "AC 00 02 C0 AC 01 02 D3 AC 01 02 D4 AC 01 02 D3 AC 01")],
            expect: [Self.kg(72.3), Self.kg(72.4), Self.kg(72.3)]
        )
        #expect(result.passed, "\(result.differences)")
        #expect(Set(result.samples.map(\.id)).count == 3, "equal frames of one value are two readings")
        #expect(result.issues.contains { $0.contains("the last 2 byte(s)") && $0.contains("frameLength 4") })
    }

    @Test func aFailingFixtureSaysWhichSampleAndWhatDiffered() async throws {
        var expected = Self.kg(72.3)
        expected.userIndex = 2
        let result = try await Self.run(
            Self.scale,
            values: [("FFE1", Self.stable)],
            expect: [expected, Self.kg(80)]
        )
        #expect(!result.passed)
        #expect(
            result.differences == [
                "sample 1: value differ: expected bodyMass 72.3 kg user 2, got bodyMass 72.35 kg user 2 at "
                    + "2024-03-01T07:12:00",
                "sample 2: expected bodyMass 80 kg, got nothing",
            ]
        )
    }

    @Test func aFixtureAdvertisementMustBeClaimedByItsOwnProfile() async throws {
        let result = try await Self.run(
            Self.scale,
            values: [("FFE1", Self.stable)],
            advertisement: Advertisement(name: "OTHER"),
            expect: [Self.kg(72.35)]
        )
        #expect(result.differences == ["advertisement: claimed by no profile instead of generic-frame-scale"])
    }

    @Test func writeCharacteristicsAreNotSubscribed() throws {
        let profile = try DeviceProfile(json: Self.scale)
        #expect(profile.connectionPlan.subscribe == [BluetoothUUID("FFE1")!])
        #expect(profile.connectionPlan.readOnce.isEmpty)
    }

    /// CI runs every fixture of every shipped profile (as `carebridge profile test` does).
    @Test func everyShippedProfilesFixturesPass() async throws {
        let loaded = DeviceProfileLoader.load(directories: [PackageRoot.devices])
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        var count = 0
        for profile in loaded.catalog.profiles {
            for fixture in profile.fixtures {
                let result = try await ProfileFixtureRunner.run(fixture, of: profile, catalog: loaded.catalog)
                #expect(result.passed, "\(profile.id) / \(fixture.name): \(result.differences) \(result.issues)")
                count += 1
            }
        }
        #expect(count >= 6)
    }

    @Test func theTraceOfAnEncryptedAdvertisementShowsItsDecryptedObjectsFrame() async throws {
        let loaded = DeviceProfileLoader.load(directories: [PackageRoot.devices])
        let profile = try #require(loaded.catalog.profiles.first { $0.id == "xiaomi-s400" })
        let published = try #require(profile.fixtures.first)
        let result = try await ProfileFixtureRunner.run(published, of: profile, catalog: loaded.catalog)
        #expect(result.trace.first?.contains("object 0x6E16: frame weighIn") == true, "\(result.trace)")
        #expect(result.trace.first?.contains("\"mass\": 69.9") == true, "\(result.trace)")
        var keyless = published
        keyless.bindKey = nil
        let refused = try await ProfileFixtureRunner.run(keyless, of: profile, catalog: loaded.catalog)
        #expect(refused.trace.first?.contains("no bind key") == true, "\(refused.trace)")
    }
}
