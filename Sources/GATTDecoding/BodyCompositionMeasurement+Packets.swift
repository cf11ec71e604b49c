/// A Body Composition Measurement split over two indications (flags bit 12, `gatt-reference.md` §5.1) is
/// merged into one self-contained value, so the decoder sees a single payload.
extension BodyCompositionMeasurement: MultiPacketPayload {
    /// Flags bit 12: the value continues in the next packet.
    static let multiplePacketFlag: UInt16 = 0x1000

    public static func continues(_ bytes: [UInt8]) -> Bool {
        (flags(bytes) ?? 0) & multiplePacketFlag != 0
    }

    /// Octets of the optional field gated by each flag bit, in field order.
    private static let fieldSizes: [(bit: Int, size: Int)] = [
        (1, 7), (2, 1), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2), (8, 2), (9, 2), (10, 2), (11, 2),
    ]

    /// The flags of a packet, if it has at least two octets.
    static func flags(_ bytes: [UInt8]) -> UInt16? {
        bytes.count >= 2 ? UInt16(bytes[0]) | UInt16(bytes[1]) << 8 : nil
    }

    private struct Packet {
        var flags: UInt16
        var bodyFat: [UInt8]
        var fields: [Int: ArraySlice<UInt8>]
    }

    private static func split(_ bytes: [UInt8]) throws(GATTDecodingError) -> Packet {
        var reader = ByteReader(bytes, context: "Body Composition Measurement (2A9C) packet")
        let flags = try reader.read(UInt16.self, field: "Flags")
        let bodyFatStart = reader.offset
        _ = try reader.read(UInt16.self, field: "Body Fat Percentage")
        var packet = Packet(flags: flags, bodyFat: Array(bytes[bodyFatStart..<bodyFatStart + 2]), fields: [:])
        let names = [
            1: "Time Stamp", 2: "User ID", 3: "Basal Metabolism", 4: "Muscle Percentage", 5: "Muscle Mass",
            6: "Fat Free Mass", 7: "Soft Lean Mass", 8: "Body Water Mass", 9: "Impedance", 10: "Weight", 11: "Height",
        ]
        for (bit, size) in fieldSizes where flags & (1 << bit) != 0 {
            let start = reader.offset
            _ = try reader.readBytes(size, field: names[bit]!)
            packet.fields[bit] = bytes[start..<start + size]
        }
        return packet
    }

    /// One value with every field of both packets; the first packet supplies the unit bit, Body Fat, Time
    /// Stamp and User ID, the second fills in what the first lacks.
    /// - Throws: a positioned error when either packet is shorter than its flags say.
    public static func merge(_ first: [UInt8], _ second: [UInt8]) throws(GATTDecodingError) -> [UInt8] {
        let a = try split(first)
        let b = try split(second)
        var flags = a.flags & 0x0001
        var fields: [Int: ArraySlice<UInt8>] = b.fields
        for (bit, value) in a.fields { fields[bit] = value }
        for bit in fields.keys { flags |= 1 << bit }
        let unsuccessful: [UInt8] = [0xFF, 0xFF]
        var merged: [UInt8] = [UInt8(flags & 0xFF), UInt8(flags >> 8)]
        merged += a.bodyFat == unsuccessful ? b.bodyFat : a.bodyFat
        for (bit, _) in fieldSizes { if let value = fields[bit] { merged += value } }
        return merged
    }
}
