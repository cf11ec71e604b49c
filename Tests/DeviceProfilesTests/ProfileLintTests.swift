import BridgeCore
import DeviceProfiles
import Testing

/// `carebridge profile lint`'s checks on profiles that load.
@Suite struct ProfileLintTests {
    static let heartRate = try! DeviceProfile(
        json: """
            {"id": "hr", "name": "HR", "link": "gatt", "match": {"serviceUUIDs": ["180D"], "priority": 10},
             "characteristics": [{"uuid": "2A37", "use": "notify", "decoder": "heart-rate-measurement"}]}
            """
    )

    static func profile(frames: String, fixtures: String = "[]", priority: Int = 20) throws -> DeviceProfile {
        try DeviceProfile(
            json: """
                {"id": "p", "name": "P", "link": "gatt", "match": {"serviceUUIDs": ["180D"], "priority": \(priority)},
                 "characteristics": [{"uuid": "FFE1", "use": "notify", "frames": \(frames)},
                                     {"uuid": "FFE3", "use": "write"}],
                 "fixtures": \(fixtures)}
                """
        )
    }

    static func messages(_ profile: DeviceProfile) -> [String] {
        ProfileLint.check(profile, against: DeviceCatalog(profiles: [heartRate, profile])).map(\.description)
    }

    @Test func aFrameAfterOneThatSelectsEverythingItWouldIsUnreachable() throws {
        let profile = try Self.profile(
            frames: """
                [{"name": "any10", "select": {"prefix": "10"}},
                 {"name": "weight", "select": {"prefix": "10 01", "length": {"min": 4}}},
                 {"name": "exact30", "select": {"prefix": "30"}},
                 {"name": "masked30", "select": {"prefix": "30", "mask": "F0"}},
                 {"name": "masked", "select": {"prefix": "20", "mask": "F0"}},
                 {"name": "other", "select": {"prefix": "20"}}]
                """
        )
        #expect(
            Self.messages(profile).contains(
                "characteristics[0].frames[1]: frame weight is unreachable: frame any10 before it selects every value it would"
            )
        )
        #expect(
            !Self.messages(profile).contains { $0.contains("frame other is unreachable") },
            "a mask narrows nothing here"
        )
    }

    @Test func aFieldBeyondTheShortestSelectedValueIsAWarning() throws {
        let profile = try Self.profile(
            frames:
                #"[{"name": "w", "select": {"length": {"min": 3}}, "fields": [{"name": "x", "at": 2, "type": "u16le"}]}]"#
        )
        let finding = try #require(ProfileLint.check(profile, against: DeviceCatalog(profiles: [])).first)
        #expect(finding.severity == .warning)
        #expect(
            finding.description
                == "characteristics[0].frames[0]: field x reads up to byte 3 but select admits values of 3 bytes (those are refused)"
        )
    }

    @Test func fixtureProblemsAreErrors() throws {
        let profile = try Self.profile(
            frames: #"[{"name": "w"}]"#,
            fixtures: """
                [{"name": "a", "values": [{"characteristic": "FFE3", "hex": "00"}, {"serviceData": "181D", "hex": "00"}],
                  "expect": []},
                 {"name": "b", "advertisement": {"name": "X"}, "values": [], "expect": []}]
                """
        )
        #expect(
            Self.messages(profile) == [
                "fixtures[0].values[0]: the profile does not read characteristic FFE3",
                "fixtures[0].values[1]: the profile does not read serviceData 181D",
                "fixtures[1].advertisement: the profile's match does not claim it",
            ]
        )
    }

    @Test func aPriorityTieOrAHigherProfileOnTheFixtureAdvertisementIsAnError() throws {
        let fixtures = #"[{"name": "a", "advertisement": {"serviceUUIDs": ["180D"]}, "values": [], "expect": []}]"#
        let tie = try Self.profile(frames: #"[{"name": "w"}]"#, fixtures: fixtures, priority: 10)
        #expect(
            Self.messages(tie) == ["fixtures[0].advertisement: priority tie (10) with profile hr, which also claims it"]
        )
        let lower = try Self.profile(frames: #"[{"name": "w"}]"#, fixtures: fixtures, priority: 5)
        #expect(Self.messages(lower) == ["fixtures[0].advertisement: profile hr (priority 10) claims it first"])
        let higher = try Self.profile(frames: #"[{"name": "w"}]"#, fixtures: fixtures, priority: 20)
        #expect(Self.messages(higher).isEmpty)
    }

    @Test func aProfileWithoutFixturesIsAWarning() {
        let findings = ProfileLint.check(Self.heartRate, against: DeviceCatalog(profiles: []))
        #expect(findings.map(\.severity) == [.warning])
        #expect(findings.first?.field == "fixtures")
    }
}
