public import BridgeCore
import BridgeFoundation
public import DeviceProfiles
import DeviceSessions
public import Foundation
import FrameDecoding
import GATTDecoding
public import Logging
import SessionReplay

/// Runs a profile's `fixtures` through exactly the pipeline users run: each fixture becomes a synthetic recording
/// (an advertisement, a connection, its values as notifications, or for a broadcast profile one advertisement per
/// value), which is replayed through ``PipelineRunner`` into a collector; the stored samples are compared with the
/// fixture's `expect`.
public enum ProfileFixtureRunner {
    /// The outcome of one fixture.
    public struct Result: Sendable {
        public var profile: String
        public var fixture: String
        /// What differed: a wrong claim, a missing, extra or different sample, a pipeline warning. Empty: passed.
        public var differences: [String]
        /// The samples the pipeline stored.
        public var samples: [QuantitySample]
        /// The pipeline's warnings and bad events (also for a passing fixture: an expected LO/HI warns).
        public var issues: [String]
        /// For each value read by frames: which frame selected it, whether it was final, its fields (to see why a
        /// fixture fails).
        public var trace: [String] = []

        public var passed: Bool { differences.isEmpty }
    }

    /// The zone and start time of every synthetic recording (fixture times are wall-clock, read in UTC here).
    static let zone = TimeZone(identifier: "UTC")!
    static let recordedAt = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01T00:00:00Z
    static let address = "02:00:00:00:F1:C5"

    /// Runs one fixture of `profile`.
    /// - Parameters:
    ///   - catalog: every loaded profile, for the claim check of a fixture's `advertisement`.
    ///   - directory: where the synthetic recording is written (and removed again).
    /// - Throws: only when the recording cannot be written or read back.
    public static func run(
        _ fixture: ProfileFixture,
        of profile: DeviceProfile,
        catalog: DeviceCatalog,
        directory: URL = FileManager.default.temporaryDirectory,
        logger: Logger = Logger(label: "carebridge.profile-test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> Result {
        var differences: [String] = []
        if let advertisement = fixture.advertisement {
            let claimant = catalog.candidates(for: advertisement)
            if claimant.first?.id != profile.id {
                differences.append(
                    "advertisement: claimed by \(claimant.first.map { "profile \($0.id)" } ?? "no profile") instead of "
                        + profile.id
                )
            } else if claimant.count > 1, claimant[1].match.priority == profile.match.priority {
                differences.append(
                    "advertisement: priority tie (\(profile.match.priority)) with profile \(claimant[1].id)"
                )
            }
        }
        let path = directory.appendingPathComponent("profile-test-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try writeRecording(fixture, of: profile, to: path)
        let transport = try ReplayTransport(path: path, logger: logger)
        let sink = SampleCollector()
        // Only this profile decodes, so a fixture tests the profile's frames even where another profile would
        // claim the device first (that is the advertisement check's business).
        var configuration = PipelineConfiguration(timeZone: zone)
        if let key = fixture.bindKey { configuration.bindKeys = BindKeys([fixture.address ?? address: key]) }
        let report = try await PipelineRunner.replay(
            transport,
            catalog: DeviceCatalog(profiles: [profile]),
            configuration: configuration,
            sink: sink,
            logger: logger
        )
        let samples = await sink.samples
        let issues = (report.badEvents + report.warnings).map(\.message)
        for bad in report.badEvents { differences.append("pipeline: \(bad.message)") }
        differences += compare(samples, with: fixture.expect)
        for text in fixture.warnings where !issues.contains(where: { $0.contains(text) }) {
            differences.append(
                "warnings: none says '\(text)' (\(issues.isEmpty ? "no warnings" : issues.joined(separator: "; ")))"
            )
        }
        var result = Result(
            profile: profile.id,
            fixture: fixture.name,
            differences: differences,
            samples: samples,
            issues: issues
        )
        result.trace = trace(fixture, of: profile)
        return result
    }

    /// What the frames make of each fixture value (the pipeline's own decoder, run once more for the report).
    static func trace(_ fixture: ProfileFixture, of profile: DeviceProfile) -> [String] {
        var lines: [String] = []
        for (index, value) in fixture.values.enumerated() {
            let frames: FrameSet?
            switch value.source {
            case .characteristic(let uuid): frames = profile.characteristic(uuid)?.frames
            case .serviceData(let uuid): frames = profile.serviceDataFormat(uuid)?.frames
            case .manufacturerData(let company): frames = profile.manufacturerDataFormat(company)?.frames
            case .written: frames = nil
            }
            guard let frames else { continue }
            let label = "value \(index + 1) (\(value.source))"
            var parts = [(label: label, bytes: value.bytes)]
            if case .serviceData(let uuid) = value.source, profile.serviceDataFormat(uuid)?.envelope == .miBeacon {
                // The frames read the envelope's objects, as the pipeline hands them over.
                do {
                    let beacon = try MiBeacon(
                        value.bytes,
                        address: fixture.address ?? address,
                        bindKey: fixture.bindKey
                    )
                    parts = beacon.objects.map {
                        (
                            "\(label) object 0x\(Hex.string([UInt8($0.id >> 8), UInt8($0.id & 0xFF)]).uppercased())",
                            $0.bytes
                        )
                    }
                } catch {
                    lines.append("\(label): MiBeacon \(error.description)")
                    continue
                }
            }
            for part in parts {
                do {
                    guard let (frame, decoded) = try frames.decode(part.bytes) else {
                        lines.append("\(part.label): no frame selects it")
                        continue
                    }
                    lines.append(
                        "\(part.label): frame \(frame.name)\(decoded.isFinal ? "" : " (intermediate)") "
                            + JSONValue.object(decoded.json).serialized()
                    )
                } catch {
                    lines.append("\(part.label): refused: \(error.description)")
                }
            }
        }
        return lines
    }

    /// The synthetic recording of a fixture.
    static func writeRecording(_ fixture: ProfileFixture, of profile: DeviceProfile, to path: String) throws {
        let writer = try RecordingWriter(
            path: path,
            header: RecordingHeader(recordedAt: recordedAt, timeZone: zone),
            inputs: []
        )
        var time = recordedAt
        func event(_ kind: TransportEvent.Kind) throws {
            try writer.write(TransportEvent(time: time, device: fixture.address ?? address, kind: kind))
            time.addTimeInterval(1)
        }
        // A fixture advertisement the profile does not match is already a difference; the values still run.
        let base =
            fixture.advertisement.flatMap { profile.match.matches($0) ? $0 : nil }
            ?? advertisement(claimedBy: profile.match)
        if profile.linkMode == .broadcast {
            for value in fixture.values {
                var advertisement = base
                switch value.source {
                case .serviceData(let uuid): advertisement.serviceData = [uuid: value.bytes]
                case .manufacturerData(let company): advertisement.manufacturerData = [company: value.bytes]
                case .characteristic(let uuid):
                    try event(.connected)
                    try event(
                        .value(CharacteristicValue(characteristic: uuid, bytes: value.bytes, delivery: .notification))
                    )
                    continue
                case .written(let uuid):
                    try event(.written(CharacteristicWrite(characteristic: uuid, bytes: value.bytes)))
                    continue
                }
                try event(.advertisement(advertisement))
            }
        } else {
            try event(.advertisement(base))
            try event(.connected)
            for value in fixture.values {
                switch value.source {
                case .characteristic(let uuid):
                    let delivery: CharacteristicValue.Delivery =
                        profile.characteristic(uuid)?.use == .indicate ? .indication : .notification
                    try event(.value(CharacteristicValue(characteristic: uuid, bytes: value.bytes, delivery: delivery)))
                case .serviceData(let uuid):
                    var advertisement = base
                    advertisement.serviceData[uuid] = value.bytes
                    try event(.advertisement(advertisement))
                case .manufacturerData(let company):
                    var advertisement = base
                    advertisement.manufacturerData[company] = value.bytes
                    try event(.advertisement(advertisement))
                case .written(let uuid):
                    try event(.written(CharacteristicWrite(characteristic: uuid, bytes: value.bytes)))
                }
            }
            try event(.disconnected(reason: "remote"))
        }
        try writer.close()
    }

    /// An advertisement the match claims: the name with its wildcards filled, the first listed UUIDs, and data
    /// values that pass the patterns.
    static func advertisement(claimedBy match: DeviceProfile.Match) -> Advertisement {
        var advertisement = Advertisement(
            name: match.namePattern.map {
                String($0.prefix { $0 != "|" }).replacingOccurrences(of: "*", with: "")
                    .replacingOccurrences(of: "?", with: "0")
            },
            serviceUUIDs: Array(match.serviceUUIDs.prefix(1))
        )
        for uuid in match.serviceData.prefix(1) { advertisement.serviceData[uuid] = [] }
        if let company = match.manufacturerID { advertisement.manufacturerData[company] = [] }
        for pattern in match.manufacturerData.prefix(1) + match.serviceDataPatterns.prefix(1) {
            let value = bytes(passing: pattern.pattern)
            switch pattern.key {
            case .company(let company): advertisement.manufacturerData[company] = value
            case .serviceData(let uuid): advertisement.serviceData[uuid] = value
            }
        }
        return advertisement
    }

    static func bytes(passing pattern: ValuePattern) -> [UInt8] {
        var value = [UInt8](
            repeating: 0,
            count: max(pattern.minimumLength ?? 0, pattern.offset + pattern.prefix.bytes.count)
        )
        for (index, byte) in pattern.prefix.bytes.enumerated() {
            value[pattern.offset + index] = (byte ?? 0) & (pattern.mask?[index] ?? 0xFF)
        }
        return value
    }

    /// What differs between the stored samples and the expectations, in order.
    static func compare(_ samples: [QuantitySample], with expectations: [ProfileFixture.Expectation]) -> [String] {
        var differences: [String] = []
        for index in 0..<max(samples.count, expectations.count) {
            let position = "sample \(index + 1)"
            guard index < samples.count else {
                differences.append("\(position): expected \(describe(expectations[index])), got nothing")
                continue
            }
            let sample = samples[index]
            guard index < expectations.count else {
                differences.append("\(position): unexpected \(describe(sample, unit: sample.unit))")
                continue
            }
            let expected = expectations[index]
            var problems: [String] = []
            if sample.type != expected.type { problems.append("type") }
            let value = sample.type == expected.type ? sample.unit.convert(sample.value, to: expected.unit) : nil
            if let value {
                if sample.comparator == nil || expected.comparator == nil || sample.value.isFinite {
                    if !same(value, expected.value, exact: expected.exact) { problems.append("value") }
                }
            }
            if sample.comparator != expected.comparator { problems.append("comparator") }
            if let user = expected.userIndex, sample.metadata["userID"] != String(user) { problems.append("userIndex") }
            if let time = expected.time, sample.deviceTime?.description != time { problems.append("time") }
            if !problems.isEmpty {
                differences.append(
                    "\(position): \(problems.joined(separator: ", ")) differ: expected \(describe(expected)), got "
                        + describe(sample, unit: expected.unit)
                )
            }
        }
        return differences
    }

    /// Equal after rounding to the decimals the expected value is written with (1e-9 when exact).
    static func same(_ actual: Double, _ expected: Double, exact: Bool) -> Bool {
        if exact { return abs(actual - expected) <= 1e-9 * max(1, abs(expected)) }
        let text = "\(expected)"
        let decimals = text.contains("e") ? 6 : max(0, (text.split(separator: ".").dropFirst().first?.count ?? 0))
        let factor = pow(10, Double(decimals))
        let rounded = (actual * factor).rounded() / factor
        return abs(rounded - expected) < 0.5 / factor
    }

    static func describe(_ expectation: ProfileFixture.Expectation) -> String {
        var text =
            "\(expectation.type.rawValue) \(expectation.comparator?.rawValue ?? "")\(number(expectation.value)) \(expectation.unit)"
        if let user = expectation.userIndex { text += " user \(user)" }
        if let time = expectation.time { text += " at \(time)" }
        return text
    }

    static func describe(_ sample: QuantitySample, unit: HealthUnit) -> String {
        let value = sample.unit.convert(sample.value, to: unit) ?? sample.value
        var text =
            "\(sample.type.rawValue) \(sample.comparator?.rawValue ?? "")\(number(value)) \(sample.unit.convert(1, to: unit) != nil ? unit : sample.unit)"
        if let user = sample.metadata["userID"] { text += " user \(user)" }
        if let time = sample.deviceTime { text += " at \(time)" }
        return text
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value > 0 ? "+∞" : "−∞" }
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}
