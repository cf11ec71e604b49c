public import BridgeFoundation

/// System ID (0x2A23) of the Device Information Service: a 40-bit manufacturer-defined identifier followed by
/// the 24-bit Organizationally Unique Identifier, both little-endian (8 octets).
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.System ID; `gatt-reference.md` §11.
public struct SystemID: GATTPayload, Hashable {
    public static let identifier = "system-id"
    public static let name = "System ID"
    public static let source = PayloadSource.characteristic(.systemID)

    /// Manufacturer-defined identifier (40 bits).
    public var manufacturerIdentifier: UInt64
    /// IEEE Organizationally Unique Identifier (24 bits).
    public var organizationallyUniqueIdentifier: UInt32

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        try reader.require(8, for: "System ID")
        let low = UInt64(try reader.read(UInt32.self, field: "Manufacturer Identifier"))
        let high = UInt64(try reader.read(UInt8.self, field: "Manufacturer Identifier"))
        manufacturerIdentifier = high << 32 | low
        organizationallyUniqueIdentifier = try reader.readUInt24(field: "Organizationally Unique Identifier")
    }

    /// The OUI in its usual spelling, most significant octet first: `00:1B:DC`.
    public var ouiText: String {
        let octets = [
            UInt8(truncatingIfNeeded: organizationallyUniqueIdentifier >> 16),
            UInt8(truncatingIfNeeded: organizationallyUniqueIdentifier >> 8),
            UInt8(truncatingIfNeeded: organizationallyUniqueIdentifier),
        ]
        return octets.map { Hex.string([$0]).uppercased() }.joined(separator: ":")
    }

    /// The IEEE EUI-64 the characteristic carries, as the PHD IG writes a System Id: eight octets in hex, the OUI
    /// first, separated by dashes (`00-1B-DC-12-34-56-78-9A`).
    public var eui64: String {
        let oui = Self.bigEndianOctets(UInt64(organizationallyUniqueIdentifier), 3)
        return (oui + Self.bigEndianOctets(manufacturerIdentifier, 5)).map { Hex.string([$0]).uppercased() }
            .joined(separator: "-")
    }

    public var fields: JSONObject {
        [
            "manufacturerIdentifier": .int(Int(manufacturerIdentifier)),
            "manufacturerIdentifierHex": .string("0x" + Hex.string(Self.bigEndianOctets(manufacturerIdentifier, 5))),
            "organizationallyUniqueIdentifier": .string(ouiText),
        ]
    }

    private static func bigEndianOctets(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
