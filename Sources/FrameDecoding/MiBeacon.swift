import BridgeFoundation

/// A Xiaomi MiBeacon advertisement (Service Data FE95): its header and its objects, decrypted with the device's
/// bind key when the frame is encrypted (MiBeacon v4/v5, AES-CCM).
///
/// Layout, as read by Bluetooth-Devices/xiaomi-ble and custom-components/ble_monitor: frame control (u16le: bit 3
/// encrypted, bit 4 MAC included, bit 5 capability included, bit 6 object included, bit 7 mesh, bits 12–15
/// version), product id (u16le), frame counter (u8), the MAC (reversed) when included, a capability byte when
/// included (and an I/O byte after it when the capability has bit 5), then the objects: id (u16le), length (u8),
/// data. An encrypted v4/v5 frame ends with a 3-byte extended counter and a 4-byte tag; its nonce is the MAC
/// (reversed), the product id, the frame counter and the extended counter; its associated data is the byte 0x11.
public struct MiBeacon: Sendable, Hashable {
    /// One object of the payload.
    public struct Object: Sendable, Hashable {
        public var id: UInt16
        public var data: [UInt8]

        public init(id: UInt16, data: [UInt8]) {
            self.id = id
            self.data = data
        }

        /// The object as it is sent: id (u16le), length, data — what a profile's frames read.
        public var bytes: [UInt8] { [UInt8(id & 0xFF), UInt8(id >> 8), UInt8(data.count)] + data }
    }

    /// Why an advertisement gave no objects.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case truncated(length: Int, needed: Int)
        /// Mesh frames and versions below 2 have another layout.
        case unsupported(String)
        /// The frame is encrypted and no bind key was given for the device.
        case noBindKey
        /// The bind key is not 16 bytes.
        case bindKeySize(Int)
        /// The device's address is needed for the nonce (the frame does not carry its MAC) and is not an address.
        case address(String)
        /// The tag does not match: a wrong bind key, or an advertisement changed on the way.
        case authenticationFailed
        /// An object's length runs past the payload.
        case malformedObjects(offset: Int)

        public var description: String {
            switch self {
            case .truncated(let length, let needed): "\(length) bytes, at least \(needed) needed"
            case .unsupported(let what): "\(what) is not read"
            case .noBindKey: "encrypted, and no bind key is given for the device"
            case .bindKeySize(let size): "a bind key has 16 bytes, not \(size)"
            case .address(let address): "'\(address)' is not a Bluetooth address (needed for the nonce)"
            case .authenticationFailed: "does not authenticate with the bind key (a wrong key, or changed bytes)"
            case .malformedObjects(let offset): "an object at byte \(offset) runs past the payload"
            }
        }
    }

    public var frameControl: UInt16
    public var version: Int
    public var productID: UInt16
    public var frameCounter: UInt8
    public var isEncrypted: Bool { frameControl & 0x08 != 0 }
    /// The objects, decrypted; empty when the frame carries none.
    public var objects: [Object]

    /// Reads (and decrypts) one advertisement.
    /// - Parameters:
    ///   - bytes: the FE95 Service Data.
    ///   - address: the advertiser's address (`8C:D0:B2:F6:BE:EF`), the nonce's MAC when the frame has none.
    ///   - bindKey: the device's 16-byte key, needed only for an encrypted frame.
    /// - Throws: ``Failure``; never returns objects that did not authenticate.
    public init(_ bytes: [UInt8], address: String, bindKey: [UInt8]?) throws(Failure) {
        guard bytes.count >= 5 else { throw .truncated(length: bytes.count, needed: 5) }
        frameControl = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        version = Int(frameControl >> 12)
        productID = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        frameCounter = bytes[4]
        guard frameControl & 0x80 == 0 else { throw .unsupported("a mesh frame") }
        guard version >= 2 else { throw .unsupported("MiBeacon version \(version)") }
        var offset = 5
        let mac: [UInt8]
        if frameControl & 0x10 != 0 {
            guard bytes.count >= offset + 6 else { throw .truncated(length: bytes.count, needed: offset + 6) }
            mac = Array(bytes[offset..<offset + 6].reversed())
            offset += 6
        } else {
            guard let parsed = Self.address(address) else { throw .address(address) }
            mac = parsed
        }
        if frameControl & 0x20 != 0 {
            guard bytes.count > offset else { throw .truncated(length: bytes.count, needed: offset + 1) }
            let capability = bytes[offset]
            offset += capability & 0x20 != 0 ? 2 : 1
        }
        guard frameControl & 0x40 != 0 else {
            objects = []
            return
        }
        let payload: [UInt8]
        if frameControl & 0x08 != 0 {
            guard version >= 4 else { throw .unsupported("legacy MiBeacon encryption (version \(version))") }
            guard bytes.count >= offset + 9 else { throw .truncated(length: bytes.count, needed: offset + 9) }
            guard let bindKey else { throw .noBindKey }
            guard bindKey.count == 16 else { throw .bindKeySize(bindKey.count) }
            let end = bytes.count
            let nonce = Array(mac.reversed()) + bytes[2..<5] + bytes[end - 7..<end - 4]
            do {
                let cipher = try AESCCM(key: bindKey, tagLength: 4)
                payload = try cipher.open(
                    Array(bytes[offset..<end - 7] + bytes[end - 4..<end]),
                    nonce: nonce,
                    associatedData: [0x11]
                )
            } catch {
                throw .authenticationFailed
            }
        } else {
            payload = Array(bytes[offset...])
        }
        objects = []
        var position = 0
        while payload.count >= position + 3 {
            let length = Int(payload[position + 2])
            guard payload.count >= position + 3 + length else { throw .malformedObjects(offset: position) }
            objects.append(
                Object(
                    id: UInt16(payload[position]) | UInt16(payload[position + 1]) << 8,
                    data: Array(payload[position + 3..<position + 3 + length])
                )
            )
            position += 3 + length
        }
    }

    /// The six bytes of `8C:D0:B2:F6:BE:EF` (also with `-` or no separators), most significant first.
    static func address(_ text: String) -> [UInt8]? {
        guard let bytes = try? Hex.bytes(text), bytes.count == 6 else { return nil }
        return bytes
    }
}
