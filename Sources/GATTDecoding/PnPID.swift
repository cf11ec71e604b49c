public import BridgeFoundation

/// PnP ID (0x2A50) of the Device Information Service: vendor and product identifiers (7 octets).
///
/// Vendor ID Source (uint8: 1 Bluetooth SIG company identifier, 2 USB Implementers Forum vendor ID, others
/// reserved), Vendor ID, Product ID and Product Version (uint16 each; the version is 0xJJMN for JJ.M.N).
/// - SeeAlso: Device Information Service 1.1, GATT Specification Supplement §3.PnP ID; `gatt-reference.md` §11.
public struct PnPID: GATTPayload, Hashable {
    public static let identifier = "pnp-id"
    public static let name = "PnP ID"
    public static let source = PayloadSource.characteristic(.pnpID)

    public var vendorIDSource: UInt8
    public var vendorID: UInt16
    public var productID: UInt16
    public var productVersion: UInt16

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        vendorIDSource = try reader.read(UInt8.self, field: "Vendor ID Source")
        vendorID = try reader.read(UInt16.self, field: "Vendor ID")
        productID = try reader.read(UInt16.self, field: "Product ID")
        productVersion = try reader.read(UInt16.self, field: "Product Version")
    }

    public var vendorIDSourceName: String {
        BitNames.code(Int(vendorIDSource), [1: "Bluetooth SIG", 2: "USB Implementers Forum"])
    }

    /// `JJ.M.N` from 0xJJMN.
    public var productVersionText: String {
        "\(productVersion >> 8).\(productVersion >> 4 & 0x0F).\(productVersion & 0x0F)"
    }

    public var fields: JSONObject {
        [
            "vendorIDSource": .int(Int(vendorIDSource)),
            "vendorIDSourceName": .string(vendorIDSourceName),
            "vendorID": .int(Int(vendorID)),
            "productID": .int(Int(productID)),
            "productVersion": .int(Int(productVersion)),
            "productVersionText": .string(productVersionText),
        ]
    }
}
