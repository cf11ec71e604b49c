package import Foundation

/// Builds btsnoop captures byte by byte, from the format and the HCI/L2CAP/ATT packet layouts (Core Vol 4 Part E
/// §5.4, Vol 3 Part A §3.1, Vol 3 Part F §3.4), so the importer is tested against packets as the spec lays them
/// out rather than against its own encoder.
package struct BTSnoopCaptureBuilder {
    package enum Format: Sendable {
        /// Android's snoop log: H4 packets, flags bit 0 = received.
        case h4
        /// `btmon -w`: the Linux monitor, flags = controller index << 16 | opcode.
        case monitor(controller: UInt16)
    }

    package let format: Format
    package private(set) var bytes: [UInt8]
    package private(set) var time: Date

    package init(format: Format, start: Date) {
        self.format = format
        self.time = start
        let datalink: UInt32 = if case .h4 = format { 1002 } else { 2001 }
        bytes = Array("btsnoop".utf8) + [0] + Self.be32(1) + Self.be32(datalink)
    }

    package static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    package static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    /// The stamp Android's snoop logger (`kBtSnoopEpochDelta`) and btmon write for the Unix epoch:
    /// 0x00DCDDB30F2F8000 µs, i.e. 719,540 days — twelve days more than the proleptic Gregorian count from
    /// 1 January 0 AD (719,528), so a reader that computed the epoch from the calendar would be 12 days off.
    package static let unixEpochStamp: UInt64 = 719_540 * 86_400_000_000

    package static func stamp(_ date: Date) -> UInt64 {
        // Signed: a capture may be stamped before 1970 (an unset clock).
        UInt64(bitPattern: Int64(unixEpochStamp) + Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    package mutating func record(_ data: [UInt8], flags: UInt32, after seconds: Double = 0.01, drops: UInt32 = 0) {
        time = time.addingTimeInterval(seconds)
        let stamp = Self.stamp(time)
        bytes += Self.be32(UInt32(data.count)) + Self.be32(UInt32(data.count)) + Self.be32(flags) + Self.be32(drops)
        bytes += Self.be32(UInt32(stamp >> 32)) + Self.be32(UInt32(stamp & 0xFFFF_FFFF))
        bytes += data
    }

    /// An HCI event (controller → host).
    package mutating func event(_ code: UInt8, _ parameters: [UInt8], after seconds: Double = 0.01) {
        let packet = [code, UInt8(parameters.count)] + parameters
        switch format {
        case .h4: record([0x04] + packet, flags: 0b11, after: seconds)
        case .monitor(let controller): record(packet, flags: UInt32(controller) << 16 | 3, after: seconds)
        }
    }

    /// An HCI command (host → controller): opcode (OGF << 10 | OCF), parameters.
    package mutating func command(_ opcode: UInt16, _ parameters: [UInt8], after seconds: Double = 0.01) {
        let packet = Self.le16(opcode) + [UInt8(parameters.count)] + parameters
        switch format {
        case .h4: record([0x01] + packet, flags: 0b10, after: seconds)
        case .monitor(let controller): record(packet, flags: UInt32(controller) << 16 | 2, after: seconds)
        }
    }

    /// An ACL fragment in either direction.
    package mutating func acl(
        handle: UInt16,
        boundary: UInt16,
        _ data: [UInt8],
        received: Bool,
        after seconds: Double = 0.01
    ) {
        let packet = Self.le16(handle | boundary << 12) + Self.le16(UInt16(data.count)) + data
        switch format {
        case .h4: record([0x02] + packet, flags: received ? 1 : 0, after: seconds)
        case .monitor(let controller):
            record(packet, flags: UInt32(controller) << 16 | (received ? 5 : 4), after: seconds)
        }
    }

    /// One ATT PDU on connection `handle`, split into ACL fragments of at most `fragment` bytes.
    package mutating func att(
        _ pdu: [UInt8],
        handle: UInt16 = 0x0040,
        received: Bool,
        fragment: Int = 27,
        after: Double = 0.01
    ) {
        let l2cap = Self.le16(UInt16(pdu.count)) + Self.le16(0x0004) + pdu
        var offset = 0
        var first = true
        while offset < l2cap.count {
            let end = min(offset + fragment, l2cap.count)
            acl(
                handle: handle,
                boundary: first ? 0b10 : 0b01,
                Array(l2cap[offset..<end]),
                received: received,
                after: first ? after : 0.001
            )
            first = false
            offset = end
        }
    }

    /// LE Connection Complete for `address` (AA:BB:…, written little-endian on air).
    package mutating func connectionComplete(handle: UInt16 = 0x0040, address: [UInt8]) {
        // subevent, status, handle, role (central), peer address type (public), address, interval, latency,
        // supervision timeout, clock accuracy
        event(
            0x3E,
            [0x01, 0x00] + Self.le16(handle) + [0x00, 0x00] + address.reversed() + [
                0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00,
            ]
        )
    }

    package mutating func disconnectionComplete(handle: UInt16 = 0x0040, reason: UInt8) {
        event(0x05, [0x00] + Self.le16(handle) + [reason])
    }

    /// A legacy LE Advertising Report of one report.
    package mutating func advertisingReport(type: UInt8, address: [UInt8], data: [UInt8], rssi: Int8) {
        event(
            0x3E,
            [0x02, 0x01, type, 0x00] + address.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        )
    }
}
