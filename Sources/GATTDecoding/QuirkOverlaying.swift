/// A payload type that can put a device's quirky bytes back into its standard layout: the capability a profile's
/// `quirks` (``PayloadQuirks``) need, checked when the profile loads, so the overlay is the payload type's own
/// code and never a switch on decoder names.
public protocol QuirkOverlaying: GATTPayload {
    /// Every quirk this layout can undo: the fields each field quirk may name and the flags it supports.
    static var supportedQuirks: PayloadQuirks { get }

    /// The payload in the standard layout, with `quirks` undone. Too-short payloads are returned unchanged (the
    /// decoder then reports where they end).
    static func standardised(_ bytes: [UInt8], undoing quirks: PayloadQuirks) -> [UInt8]
}

// MARK: - QuirkOverlaying

extension BloodPressureMeasurement: QuirkOverlaying {
    public static let supportedQuirks = PayloadQuirks(
        bigEndian: ["pulseRate", "measurementStatus"],
        userIDAlwaysPresent: true,
        zeroMeansAbsent: ["systolic", "diastolic", "meanArterialPressure", "pulseRate"]
    )

    /// Flags, systolic, diastolic, mean arterial pressure (SFLOAT each), time stamp (7, flag bit 1), pulse rate
    /// (flag bit 2), User ID (bit 3), measurement status (bit 4).
    public static func standardised(_ bytes: [UInt8], undoing quirks: PayloadQuirks) -> [UInt8] {
        guard let flags = bytes.first else { return bytes }
        var out = bytes
        if quirks.userIDAlwaysPresent { out[0] = flags | 0x08 }
        for (index, field) in ["systolic", "diastolic", "meanArterialPressure"].enumerated()
        where quirks.zeroMeansAbsent.contains(field) {
            PayloadQuirks.zeroToNaN(&out, at: 1 + 2 * index)
        }
        var offset = 7 + (flags & 0x02 != 0 ? 7 : 0)
        if flags & 0x04 != 0 {
            if quirks.bigEndian.contains("pulseRate") { PayloadQuirks.swap(&out, at: offset) }
            if quirks.zeroMeansAbsent.contains("pulseRate") { PayloadQuirks.zeroToNaN(&out, at: offset) }
            offset += 2
        }
        if out[0] & 0x08 != 0 { offset += 1 }
        if flags & 0x10 != 0, quirks.bigEndian.contains("measurementStatus") { PayloadQuirks.swap(&out, at: offset) }
        return out
    }
}

extension IntermediateCuffPressure: QuirkOverlaying {
    public static let supportedQuirks = PayloadQuirks(
        bigEndian: ["pulseRate", "measurementStatus"],
        userIDAlwaysPresent: true,
        zeroMeansAbsent: ["pulseRate"]
    )

    /// The Blood Pressure Measurement layout (the current cuff pressure in the systolic field).
    public static func standardised(_ bytes: [UInt8], undoing quirks: PayloadQuirks) -> [UInt8] {
        BloodPressureMeasurement.standardised(bytes, undoing: quirks)
    }
}

extension GlucoseMeasurement: QuirkOverlaying {
    public static let supportedQuirks = PayloadQuirks(ignoreTimeOffset: true)

    /// Flags, sequence number (2), base time (7), then the time offset when flag bit 0 is set.
    public static func standardised(_ bytes: [UInt8], undoing quirks: PayloadQuirks) -> [UInt8] {
        guard quirks.ignoreTimeOffset, let flags = bytes.first, flags & 0x01 != 0, bytes.count >= 12 else {
            return bytes
        }
        var out = bytes
        out[10] = 0
        out[11] = 0
        return out
    }
}
