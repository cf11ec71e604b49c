import BridgeCore
import DeviceSessions
import FrameDecoding

/// What `carebridge profile lint` finds in a profile that loaded (a profile that does not load is an error with its
/// JSON path already): unreachable frames, fixtures naming values the profile does not read, priority ties on its
/// own fixture advertisements, fields beyond the shortest selected value, a profile without fixtures.
public enum ProfileLint {
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public enum Severity: String, Sendable, Hashable {
            case error, warning
        }

        public var severity: Severity
        /// Where in the profile, as a JSON path (empty for the whole profile).
        public var field: String
        public var message: String

        public init(_ severity: Severity, _ field: String, _ message: String) {
            self.severity = severity
            self.field = field
            self.message = message
        }

        public var description: String { field.isEmpty ? message : "\(field): \(message)" }
    }

    /// Checks a loaded profile.
    /// - Parameter catalog: the other loaded profiles (built-in, user), for priority ties.
    public static func check(_ profile: DeviceProfile, against catalog: DeviceCatalog) -> [Finding] {
        var findings: [Finding] = []
        var entries: [(path: String, frames: FrameSet)] = []
        for (index, entry) in profile.characteristics.enumerated() {
            if let frames = entry.frames { entries.append(("characteristics[\(index)].frames", frames)) }
        }
        for (index, entry) in profile.serviceData.enumerated() {
            if let frames = entry.frames { entries.append(("serviceData[\(index)].frames", frames)) }
        }
        for (index, entry) in profile.manufacturerData.enumerated() {
            entries.append(("manufacturerData[\(index)].frames", entry.frames))
        }
        for (path, set) in entries {
            for (index, frame) in set.frames.enumerated() {
                let here = "\(path)[\(index)]"
                if let earlier = set.frames[..<index].first(where: { covers($0, frame) }) {
                    findings.append(
                        Finding(
                            .error,
                            here,
                            "frame \(frame.name) is unreachable: frame \(earlier.name) before it selects every value it would"
                        )
                    )
                }
                if let shortest = frame.select.minimumLength ?? frame.select.maximumLength {
                    for field in frame.fields where field.at >= 0 && field.minimumValueLength > shortest {
                        findings.append(
                            Finding(
                                .warning,
                                here,
                                "field \(field.name) reads up to byte \(field.minimumValueLength - 1) but select "
                                    + "admits values of \(shortest) bytes (those are refused)"
                            )
                        )
                    }
                }
            }
        }
        if profile.fixtures.isEmpty {
            findings.append(
                Finding(.warning, "fixtures", "no fixtures: `carebridge profile test` cannot check this profile")
            )
        }
        for (index, fixture) in profile.fixtures.enumerated() {
            let here = "fixtures[\(index)]"
            for (position, value) in fixture.values.enumerated() where !reads(profile, value.source) {
                findings.append(
                    Finding(.error, "\(here).values[\(position)]", "the profile does not read \(value.source)")
                )
            }
            guard let advertisement = fixture.advertisement else { continue }
            let others = catalog.candidates(for: advertisement).filter { $0.id != profile.id }
            if !profile.match.matches(advertisement) {
                findings.append(Finding(.error, "\(here).advertisement", "the profile's match does not claim it"))
            } else if let tie = others.first(where: { $0.match.priority == profile.match.priority }) {
                findings.append(
                    Finding(
                        .error,
                        "\(here).advertisement",
                        "priority tie (\(profile.match.priority)) with profile \(tie.id), which also claims it"
                    )
                )
            } else if let winner = others.first(where: { $0.match.priority > profile.match.priority }) {
                findings.append(
                    Finding(
                        .error,
                        "\(here).advertisement",
                        "profile \(winner.id) (priority \(winner.match.priority)) claims it first"
                    )
                )
            }
        }
        return findings
    }

    /// True when `earlier` selects every value `later` would (so `later` never decodes anything).
    static func covers(_ earlier: Frame, _ later: Frame) -> Bool {
        guard earlier.selectWhen.isEmpty else { return false }
        let a = earlier.select
        let b = later.select
        if a.prefix.bytes.allSatisfy({ $0 == nil }), a.minimumLength == nil, a.maximumLength == nil { return true }
        guard a.offset == b.offset, a.mask == b.mask, a.prefix.bytes.count <= b.prefix.bytes.count
        else { return false }
        for (index, byte) in a.prefix.bytes.enumerated() where byte != nil && byte != b.prefix.bytes[index] {
            return false
        }
        if let low = a.minimumLength, low > (b.minimumLength ?? 0) { return false }
        if let high = a.maximumLength, high < (b.maximumLength ?? Int.max) { return false }
        return true
    }

    static func reads(_ profile: DeviceProfile, _ source: ProfileFixture.Source) -> Bool {
        switch source {
        case .characteristic(let uuid):
            // A record reader (the `omron` memory map) reads its receive channels, which are no characteristic entries.
            profile.characteristic(uuid).map { $0.use != .write } ?? (profile.makeRecordReader()?.reads(uuid) ?? false)
        case .serviceData(let uuid): profile.serviceDataFormat(uuid) != nil
        case .manufacturerData(let company): profile.manufacturerDataFormat(company) != nil
        case .written(let uuid):
            profile.session.writtenCharacteristics.contains(uuid) || profile.characteristic(uuid)?.use == .write
        }
    }
}
