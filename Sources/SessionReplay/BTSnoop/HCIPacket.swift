/// One HCI packet of a capture, as the host saw it: which controller, which way, and what kind.
///
/// - SeeAlso: Bluetooth Core Specification Vol 4 Part A (UART transport packet types) and Vol 4 Part E §5.4 (HCI
///   packet formats); BlueZ `src/shared/btsnoop.h` for the monitor opcodes.
public struct HCIPacket: Sendable, Hashable {
    public enum Direction: Sendable, Hashable {
        /// Host to controller: commands and outgoing ACL data.
        case sent
        /// Controller to host: events and incoming ACL data.
        case received
    }

    public enum Kind: Sendable, Hashable {
        case command([UInt8])
        case event(code: UInt8, parameters: [UInt8])
        /// ACL data: the connection handle, the packet-boundary flag (0, 2 or 3 start an L2CAP PDU; 1 continues
        /// one) and the fragment.
        case acl(handle: UInt16, boundary: UInt8, data: [UInt8])
        /// SCO, ISO, monitor notes and anything else this importer does not use.
        case other
        /// A packet shorter than its own header says.
        case malformed(String)
    }

    /// The controller index (the Linux monitor's hciN); 0 for the single-controller formats.
    public var controller: UInt16
    public var direction: Direction
    public var kind: Kind

    public init(controller: UInt16, direction: Direction, kind: Kind) {
        self.controller = controller
        self.direction = direction
        self.kind = kind
    }

    /// The packet a record holds under the capture's datalink.
    public init(record: BTSnoopFile.Record, datalink: BTSnoopFile.Datalink) {
        let data = record.data
        switch datalink {
        case .hciUART:
            let direction: Direction = record.flags & 1 == 0 ? .sent : .received
            guard let type = data.first else {
                self.init(controller: 0, direction: direction, kind: .malformed("an empty H4 packet"))
                return
            }
            let body = Array(data.dropFirst())
            let kind: Kind
            switch type {
            case 0x01: kind = .command(body)
            case 0x02: kind = Self.acl(body)
            case 0x04: kind = Self.event(body)
            default: kind = .other
            }
            self.init(controller: 0, direction: direction, kind: kind)
        case .hciUnencapsulated:
            let direction: Direction = record.flags & 1 == 0 ? .sent : .received
            let kind: Kind
            if record.flags & 2 != 0 {
                kind = direction == .sent ? .command(data) : Self.event(data)
            } else {
                kind = Self.acl(data)
            }
            self.init(controller: 0, direction: direction, kind: kind)
        case .linuxMonitor:
            let controller = UInt16(truncatingIfNeeded: record.flags >> 16)
            switch record.flags & 0xFFFF {
            case 2: self.init(controller: controller, direction: .sent, kind: .command(data))
            case 3: self.init(controller: controller, direction: .received, kind: Self.event(data))
            case 4: self.init(controller: controller, direction: .sent, kind: Self.acl(data))
            case 5: self.init(controller: controller, direction: .received, kind: Self.acl(data))
            default: self.init(controller: controller, direction: .received, kind: .other)
            }
        }
    }

    static func event(_ data: [UInt8]) -> Kind {
        guard data.count >= 2 else { return .malformed("an HCI event shorter than its 2-byte header") }
        let length = Int(data[1])
        guard data.count - 2 >= length else {
            return .malformed("an HCI event 0x\(hex(data[0])) says \(length) parameter bytes but has \(data.count - 2)")
        }
        return .event(code: data[0], parameters: Array(data[2..<(2 + length)]))
    }

    static func acl(_ data: [UInt8]) -> Kind {
        guard data.count >= 4 else { return .malformed("an ACL packet shorter than its 4-byte header") }
        let word = UInt16(data[0]) | UInt16(data[1]) << 8
        let length = Int(UInt16(data[2]) | UInt16(data[3]) << 8)
        guard data.count - 4 >= length else {
            return .malformed("an ACL packet says \(length) bytes but has \(data.count - 4)")
        }
        return .acl(handle: word & 0x0FFF, boundary: UInt8((word >> 12) & 0x3), data: Array(data[4..<(4 + length)]))
    }
}

func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
}

func hex16(_ value: UInt16) -> String {
    hex(UInt8(value >> 8)) + hex(UInt8(value & 0xFF))
}
