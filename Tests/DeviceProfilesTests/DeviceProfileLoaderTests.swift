import BridgeCore
import DeviceProfiles
import Foundation
import GATTDecoding
import Testing

@Suite struct DeviceProfileLoaderTests {
    static let valid = """
        {"id": "my-scale", "name": "My scale", "match": {"name": "MYSCALE*", "priority": 50}, "link": "gatt",
         "characteristics": [{"uuid": "2a9d", "use": "indicate", "decoder": "weight-measurement"}],
         "quirks": {"clockUnreliable": true}}
        """

    func directory(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return url
    }

    @Test func brokenProfileIsReportedWithPathAndOthersStillLoad() throws {
        let dir = try directory([
            "a-good.json": Self.valid,
            "b-bad-uuid.json": Self.valid.replacingOccurrences(of: "2a9d", with: "zz9d").replacingOccurrences(
                of: "my-scale",
                with: "b"
            ),
            "c-not-json.json": "{\"id\": ",
            "notes.txt": "ignored",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = DeviceProfileLoader.load(directories: [dir])
        #expect(result.catalog.profiles.map(\.id) == ["my-scale"])
        #expect(result.problems.count == 2)
        let bad = try #require(result.problems.first { $0.path.hasSuffix("b-bad-uuid.json") })
        #expect(bad.message.contains("characteristics[0].uuid"))
        #expect(bad.message.contains("zz9d"))
        let notJSON = try #require(result.problems.first { $0.path.hasSuffix("c-not-json.json") })
        #expect(notJSON.path == dir.appendingPathComponent("c-not-json.json").path)
        #expect(notJSON.message.contains("column"))
    }

    @Test func userDirectoryProfileReplacesBuiltInWithSameID() throws {
        let builtIn = try directory([
            "weight-scale.json": Self.valid.replacingOccurrences(of: "my-scale", with: "weight-scale")
        ])
        let user = try directory([
            "weight-scale.json": Self.valid.replacingOccurrences(of: "my-scale", with: "weight-scale")
                .replacingOccurrences(of: "\"priority\": 50", with: "\"priority\": 99")
        ])
        defer {
            try? FileManager.default.removeItem(at: builtIn)
            try? FileManager.default.removeItem(at: user)
        }
        let result = DeviceProfileLoader.load(directories: [builtIn, user])
        #expect(result.catalog.profiles.count == 1)
        #expect(result.catalog.profiles.first?.match.priority == 99)
        #expect(result.files["weight-scale"] == user.appendingPathComponent("weight-scale.json").path)
    }

    @Test func misspelledDecoderFailsToLoadWithFileAndPathAndTheBuiltInProfileStays() throws {
        let builtIn = try directory([
            "weight-scale.json": Self.valid.replacingOccurrences(of: "my-scale", with: "weight-scale")
        ])
        let user = try directory([
            "weight-scale.json": Self.valid.replacingOccurrences(of: "my-scale", with: "weight-scale")
                .replacingOccurrences(of: "\"weight-measurement\"", with: "\"weight-measurment\"")
                .replacingOccurrences(of: "\"priority\": 50", with: "\"priority\": 99")
        ])
        defer {
            try? FileManager.default.removeItem(at: builtIn)
            try? FileManager.default.removeItem(at: user)
        }
        let result = DeviceProfileLoader.load(directories: [builtIn, user])
        let problem = try #require(result.problems.first)
        #expect(result.problems.count == 1)
        #expect(problem.path == user.appendingPathComponent("weight-scale.json").path)
        #expect(problem.message.hasPrefix("characteristics[0].decoder: unknown decoder 'weight-measurment'"))
        #expect(problem.message.contains("weight-measurement"))
        // The broken profile never replaces the working one.
        #expect(result.catalog.profiles.map(\.match.priority) == [50])
        #expect(result.files["weight-scale"] == builtIn.appendingPathComponent("weight-scale.json").path)
        let decoder = try #require(result.catalog.profiles.first?.characteristics.first?.decoder)
        #expect(decoder == PayloadDecoder(WeightMeasurement.self))
    }

    @Test(
        "a decoder that cannot serve its entry is a profile error at the entry",
        arguments: [
            (
                "{\"uuid\": \"2a19\", \"use\": \"read\", \"decoder\": \"battery-level\", \"role\": \"identity\"}",
                "characteristics[1].decoder", "not a Device Information string"
            ),
            (
                "{\"uuid\": \"2a19\", \"use\": \"read\", \"decoder\": \"battery-level\", \"role\": \"context\"}",
                "characteristics[1].decoder", "gives no context fields"
            ),
            (
                "{\"uuid\": \"2a19\", \"use\": \"read\", \"decoder\": \"battery-level\", \"role\": \"clock\"}",
                "characteristics[1].decoder", "does not read a device clock"
            ),
            (
                "{\"uuid\": \"2a9c\", \"use\": \"indicate\", \"decoder\": \"weight-measurement\", \"multiPacket\": true}",
                "characteristics[1].multiPacket", "body-composition-measurement"
            ),
            (
                "{\"uuid\": \"2a19\", \"use\": \"read\", \"decoder\": \"battery-level\"}",
                "characteristics[1].decoder", "battery-level gives no samples; role measurement needs one of"
            ),
            (
                "{\"uuid\": \"2a19\", \"use\": \"read\", \"decoder\": \"battery-level\", \"role\": \"controlPoint\"}",
                "characteristics[1].decoder", "battery-level is not a control point; role controlPoint needs one of"
            ),
            (
                "{\"uuid\": \"2a9c\", \"use\": \"indicate\", \"decoder\": \"body-composition-measurement\", "
                    + "\"role\": \"info\", \"multiPacket\": true}",
                "characteristics[1].multiPacket", "only a measurement's values are merged"
            ),
        ]
    )
    func decoderMustServeItsRole(entry: String, field: String, message: String) {
        let json = Self.valid.replacingOccurrences(
            of: "\"decoder\": \"weight-measurement\"}",
            with: "\"decoder\": \"weight-measurement\"}, \(entry)"
        )
        do {
            _ = try DeviceProfile(json: json)
            Issue.record("loaded a profile whose decoder cannot serve \(field)")
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func aMeasurementWhosePayloadGivesNoSamplesIsRejectedAtLoadNamingFileAndCharacteristic() throws {
        let dir = try directory([
            "battery-as-measurement.json": Self.valid.replacingOccurrences(
                of: "{\"uuid\": \"2a9d\", \"use\": \"indicate\", \"decoder\": \"weight-measurement\"}",
                with: "{\"uuid\": \"2a19\", \"use\": \"notify\", \"decoder\": \"battery-level\"}"
            )
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = DeviceProfileLoader.load(directories: [dir])
        #expect(result.catalog.profiles.isEmpty)
        let problem = try #require(result.problems.first)
        #expect(result.problems.count == 1)
        #expect(problem.path == dir.appendingPathComponent("battery-as-measurement.json").path)
        #expect(problem.message.hasPrefix("characteristics[0].decoder: battery-level gives no samples"))
        #expect(problem.message.contains("weight-measurement"))
    }

    @Test func everyEntryResolvesToTheTypedRoleItDeclares() throws {
        let profile = try DeviceProfile(
            json: Self.valid.replacingOccurrences(
                of: "\"decoder\": \"weight-measurement\"}",
                with: "\"decoder\": \"weight-measurement\"}, "
                    + "{\"uuid\": \"2a52\", \"use\": \"indicate\", \"decoder\": \"record-access-control-point\", "
                    + "\"role\": \"controlPoint\"}, "
                    + "{\"uuid\": \"2a29\", \"use\": \"read\", \"decoder\": \"manufacturer-name-string\", "
                    + "\"role\": \"identity\"}"
            )
        )
        #expect(
            profile.characteristics.map(\.reading) == [
                .measurement(WeightMeasurement.self),
                .controlPoint(RecordAccessControlPoint.self),
                .identity(ManufacturerNameString.self),
            ]
        )
    }

    @Test func missingExplicitDirectoryIsAProblemButMissingDefaultIsNot() {
        let missing = URL(fileURLWithPath: "/nonexistent/carebridge-devices")
        #expect(DeviceProfileLoader.load(directories: [missing]).problems.isEmpty)
        let explicit = DeviceProfileLoader.load(directories: [], required: [missing])
        #expect(explicit.problems.map(\.path) == [missing.path])
    }

    @Test func userDirectoryFollowsXDGConfigHome() {
        #expect(
            DeviceProfileLoader.userDirectory(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/a"])?.path
                == "/cfg/carebridge/devices"
        )
        #expect(
            DeviceProfileLoader.userDirectory(environment: ["HOME": "/home/a"])?.path
                == "/home/a/.config/carebridge/devices"
        )
    }

    @Test func theBuiltInProfilesAreEveryShippedProfileCompiledIn() throws {
        // The build plugin embeds Devices/ as it is in the checkout: the same files, byte for byte.
        let devices = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Devices")
        let shipped = try FileManager.default.contentsOfDirectory(atPath: devices.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(BuiltInProfiles.files.map(\.name) == shipped)
        for file in BuiltInProfiles.files {
            let text = try String(contentsOf: devices.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.json == text, "\(file.name)")
        }
        let loaded = DeviceProfileLoader.load(builtIn: true, directories: [])
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        #expect(loaded.catalog.profiles.count == shipped.count)
        #expect(loaded.files["weight-scale"] == "built-in Devices/weight-scale.json")
    }

    @Test func aUserProfileReplacesTheBuiltInOneWithTheSameID() throws {
        let config = try directory([:])
        defer { try? FileManager.default.removeItem(at: config) }
        let user = config.appendingPathComponent("carebridge/devices")
        try FileManager.default.createDirectory(at: user, withIntermediateDirectories: true)
        try Self.valid.replacingOccurrences(of: "my-scale", with: "weight-scale")
            .replacingOccurrences(of: "\"priority\": 50", with: "\"priority\": 99")
            .write(to: user.appendingPathComponent("mine.json"), atomically: true, encoding: .utf8)
        let result = DeviceProfileLoader.loadDefault(environment: ["XDG_CONFIG_HOME": config.path])
        #expect(result.catalog.profile(id: "weight-scale")?.match.priority == 99)
        #expect(result.files["weight-scale"] == user.appendingPathComponent("mine.json").path)
        #expect(result.catalog.profiles.count == BuiltInProfiles.count)
    }

    @Test(
        "rejects profiles with a clear field path",
        arguments: [
            (
                "{\"id\": \"x\", \"name\": \"x\", \"match\": {}, \"link\": \"gatt\", \"characteristics\": [{\"uuid\": \"2A9D\", \"use\": \"indicate\", \"decoder\": \"d\"}]}",
                "match"
            ),
            (
                "{\"id\": \"x\", \"name\": \"x\", \"match\": {\"serviceUUIDs\": [\"181D\"]}, \"link\": \"radio\"}",
                "link"
            ),
            (
                "{\"id\": \"x\", \"name\": \"x\", \"match\": {\"serviceUUIDs\": [\"181D\"]}, \"link\": \"gatt\", \"characteristics\": [{\"uuid\": \"2A9D\", \"use\": \"listen\", \"decoder\": \"d\"}]}",
                "characteristics[0].use"
            ),
            (
                "{\"id\": \"x\", \"name\": \"x\", \"match\": {\"serviceUUIDs\": [\"181D\"]}, \"link\": \"broadcast\"}",
                "serviceData"
            ),
            (
                "{\"id\": \"x\", \"name\": \"x\", \"match\": {\"serviceUUIDs\": [\"181D\"], \"manufacturerID\": \"xyz\"}, \"link\": \"gatt\"}",
                "match.manufacturerID"
            ),
            (
                "{\"id\": \"x\", \"name\": \"x\", \"match\": {\"serviceUUIDs\": [\"181D\"]}, \"link\": \"gatt\", \"quirk\": {}}",
                "quirk"
            ),
        ]
    )
    func rejectsWithFieldPath(json: String, field: String) {
        #expect(throws: DeviceProfileError.self) { try DeviceProfile(json: json) }
        do {
            _ = try DeviceProfile(json: json)
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test func matchCriteriaAreAllRequired() throws {
        let profile = try DeviceProfile(
            json: Self.valid.replacingOccurrences(
                of: "\"name\": \"MYSCALE*\"",
                with: "\"name\": \"MYSCALE*\", \"manufacturerID\": \"0x0157\""
            )
        )
        #expect(profile.match.manufacturerID == 0x0157)
        #expect(!profile.match.matches(Advertisement(name: "MYSCALE-1")))
        #expect(profile.match.matches(Advertisement(name: "MYSCALE-1", manufacturerData: [0x0157: []])))
        #expect(!profile.match.matches(Advertisement(name: "myscale-1", manufacturerData: [0x0157: []])))
        #expect(profile.quirks.clockUnreliable)
    }

    @Test(
        "name patterns are globs",
        arguments: [
            ("MIBFS", "MIBFS", true), ("MIBFS*", "MIBFS", true), ("MIBFS*", "MIBFS-2", true),
            ("*H10*", "Polar H10 1A", true),
            ("A?C", "ABC", true), ("A?C", "AC", false), ("MIBFS", "MIBFS2", false), ("*", "", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("013197*|013198*|0202B6*", "0202B6AABB", true), ("013197*|013198*|0202B6*", "0131981", true),
            ("013197*|013198*|0202B6*", "0203B1", false),
        ]
    )
    func globs(pattern: String, name: String, matches: Bool) throws {
        let match = DeviceProfile.Match(namePattern: pattern)
        #expect(match.matches(Advertisement(name: name)) == matches)
    }
}
