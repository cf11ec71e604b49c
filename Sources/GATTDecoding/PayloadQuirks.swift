/// Vendor quirks a device profile switches on for one characteristic: the device's bytes are put back into the
/// standard layout before the standard decoder reads them, so quirks stay profile data and decoders stay the spec.
///
/// - `bigEndian`: fields the device sends most significant byte first (Beurer BM85/BM48/BM59/ELITE900 and
///   Silvercrest cuffs: `pulseRate`, `measurementStatus`).
/// - `userIDAlwaysPresent`: the device includes the User ID byte even when flag bit 3 is clear (the same cuffs).
/// - `zeroMeansAbsent`: SFLOAT fields where the device sends 0 for "not measured" (read as NaN: no value).
/// - `ignoreTimeOffset`: a glucose meter whose Time Offset is not what the spec says (read as 0).
///
/// Supported for Blood Pressure Measurement / Intermediate Cuff Pressure (`systolic`, `diastolic`,
/// `meanArterialPressure`, `pulseRate`, `measurementStatus`, User ID) and Glucose Measurement (time offset).
/// The raw payload the bridge keeps is always the device's own; only the decoded fields follow the overlay.
public struct PayloadQuirks: Sendable, Hashable {
    public var bigEndian: Set<String>
    public var userIDAlwaysPresent: Bool
    public var zeroMeansAbsent: Set<String>
    public var ignoreTimeOffset: Bool

    public init(
        bigEndian: Set<String> = [],
        userIDAlwaysPresent: Bool = false,
        zeroMeansAbsent: Set<String> = [],
        ignoreTimeOffset: Bool = false
    ) {
        self.bigEndian = bigEndian
        self.userIDAlwaysPresent = userIDAlwaysPresent
        self.zeroMeansAbsent = zeroMeansAbsent
        self.ignoreTimeOffset = ignoreTimeOffset
    }

    public var isEmpty: Bool {
        bigEndian.isEmpty && !userIDAlwaysPresent && zeroMeansAbsent.isEmpty && !ignoreTimeOffset
    }

    /// Fields a byte-order quirk may name, by decoder identifier.
    public static let byteOrderFields: [String: Set<String>] = [
        "blood-pressure-measurement": ["pulseRate", "measurementStatus"],
        "intermediate-cuff-pressure": ["pulseRate", "measurementStatus"],
    ]

    /// SFLOAT fields a zero-means-absent quirk may name, by decoder identifier.
    public static let zeroFields: [String: Set<String>] = [
        "blood-pressure-measurement": ["systolic", "diastolic", "meanArterialPressure", "pulseRate"],
        "intermediate-cuff-pressure": ["pulseRate"],
    ]

    /// Why these quirks cannot apply to `decoder`, or nil when they can (checked when a profile loads).
    public func problem(forDecoder decoder: String) -> String? {
        let byteOrder = Self.byteOrderFields[decoder] ?? []
        if let field = bigEndian.sorted().first(where: { !byteOrder.contains($0) }) {
            return "byte order of '\(field)' is not a quirk of \(decoder) (supported: \(Self.list(byteOrder)))"
        }
        let zero = Self.zeroFields[decoder] ?? []
        if let field = zeroMeansAbsent.sorted().first(where: { !zero.contains($0) }) {
            return "'\(field)' zero means absent is not a quirk of \(decoder) (supported: \(Self.list(zero)))"
        }
        if userIDAlwaysPresent, Self.byteOrderFields[decoder] == nil {
            return "userIDAlwaysPresent applies to blood-pressure-measurement and intermediate-cuff-pressure only"
        }
        if ignoreTimeOffset, decoder != "glucose-measurement" {
            return "ignoreTimeOffset applies to glucose-measurement only"
        }
        return nil
    }

    private static func list(_ fields: Set<String>) -> String {
        fields.isEmpty ? "none" : fields.sorted().joined(separator: ", ")
    }

    /// The payload in the standard layout for `decoder`. Too-short payloads are returned unchanged (the decoder
    /// then reports where they end).
    public func standardised(_ bytes: [UInt8], decoder: String) -> [UInt8] {
        guard !isEmpty, let flags = bytes.first else { return bytes }
        var out = bytes
        switch decoder {
        case "blood-pressure-measurement", "intermediate-cuff-pressure":
            if userIDAlwaysPresent { out[0] = flags | 0x08 }
            for (index, field) in ["systolic", "diastolic", "meanArterialPressure"].enumerated()
            where zeroMeansAbsent.contains(field) {
                Self.zeroToNaN(&out, at: 1 + 2 * index)
            }
            var offset = 7 + (flags & 0x02 != 0 ? 7 : 0)
            if flags & 0x04 != 0 {
                if bigEndian.contains("pulseRate") { Self.swap(&out, at: offset) }
                if zeroMeansAbsent.contains("pulseRate") { Self.zeroToNaN(&out, at: offset) }
                offset += 2
            }
            if out[0] & 0x08 != 0 { offset += 1 }
            if flags & 0x10 != 0, bigEndian.contains("measurementStatus") { Self.swap(&out, at: offset) }
        case "glucose-measurement":
            // Flags, sequence number (2), base time (7), then the time offset when bit 0 is set.
            if ignoreTimeOffset, flags & 0x01 != 0, out.count >= 12 {
                out[10] = 0
                out[11] = 0
            }
        default:
            break
        }
        return out
    }

    private static func swap(_ bytes: inout [UInt8], at offset: Int) {
        guard offset + 1 < bytes.count else { return }
        bytes.swapAt(offset, offset + 1)
    }

    /// SFLOAT 0x0000 → NaN (0x07FF).
    private static func zeroToNaN(_ bytes: inout [UInt8], at offset: Int) {
        guard offset + 1 < bytes.count, bytes[offset] == 0, bytes[offset + 1] == 0 else { return }
        bytes[offset] = 0xFF
        bytes[offset + 1] = 0x07
    }
}
