/// Vendor quirks a device profile switches on for one characteristic: the device's bytes are put back into the
/// standard layout before the standard decoder reads them, so quirks stay profile data and decoders stay the spec.
///
/// - `bigEndian`: fields the device sends most significant byte first (Beurer BM85/BM48/BM59/ELITE900 and
///   Silvercrest cuffs: `pulseRate`, `measurementStatus`).
/// - `userIDAlwaysPresent`: the device includes the User ID byte even when flag bit 3 is clear (the same cuffs).
/// - `zeroMeansAbsent`: SFLOAT fields where the device sends 0 for "not measured" (read as NaN: no value).
/// - `ignoreTimeOffset`: a glucose meter whose Time Offset is not what the spec says (read as 0).
///
/// Which quirks a payload type can undo is its own capability (``QuirkOverlaying``: Blood Pressure Measurement,
/// Intermediate Cuff Pressure, Glucose Measurement); a profile binds its quirks to it at load (``QuirkOverlay``).
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

    /// Why these quirks cannot apply to values read by `type`, or nil when they can (checked when a profile loads):
    /// a payload type undoes the quirks it lists in ``QuirkOverlaying/supportedQuirks``, and no others.
    public func problem(for type: any GATTPayload.Type) -> String? {
        let decoder = type.identifier
        let supported = (type as? any QuirkOverlaying.Type)?.supportedQuirks ?? PayloadQuirks()
        if let field = bigEndian.sorted().first(where: { !supported.bigEndian.contains($0) }) {
            return
                "byte order of '\(field)' is not a quirk of \(decoder) (supported: \(Self.list(supported.bigEndian)))"
        }
        if let field = zeroMeansAbsent.sorted().first(where: { !supported.zeroMeansAbsent.contains($0) }) {
            return "'\(field)' zero means absent is not a quirk of \(decoder) (supported: "
                + "\(Self.list(supported.zeroMeansAbsent)))"
        }
        if userIDAlwaysPresent, !supported.userIDAlwaysPresent {
            return "userIDAlwaysPresent applies to \(Self.decoders(supporting: \.userIDAlwaysPresent)) only"
        }
        if ignoreTimeOffset, !supported.ignoreTimeOffset {
            return "ignoreTimeOffset applies to \(Self.decoders(supporting: \.ignoreTimeOffset)) only"
        }
        return nil
    }

    private static func list(_ fields: Set<String>) -> String {
        fields.isEmpty ? "none" : fields.sorted().joined(separator: ", ")
    }

    /// `blood-pressure-measurement and intermediate-cuff-pressure`: the catalogue's decoders that undo a flag quirk.
    private static func decoders(supporting flag: KeyPath<PayloadQuirks, Bool>) -> String {
        DecoderCatalog.all.compactMap { $0 as? any QuirkOverlaying.Type }.filter { $0.supportedQuirks[keyPath: flag] }
            .map { $0.identifier }.joined(separator: " and ")
    }

    static func swap(_ bytes: inout [UInt8], at offset: Int) {
        guard offset + 1 < bytes.count else { return }
        bytes.swapAt(offset, offset + 1)
    }

    /// SFLOAT 0x0000 → NaN (0x07FF).
    static func zeroToNaN(_ bytes: inout [UInt8], at offset: Int) {
        guard offset + 1 < bytes.count, bytes[offset] == 0, bytes[offset + 1] == 0 else { return }
        bytes[offset] = 0xFF
        bytes[offset + 1] = 0x07
    }
}
