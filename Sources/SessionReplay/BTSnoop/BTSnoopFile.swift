import BridgeCore
public import Foundation

/// A btsnoop capture: the file format of Android's HCI snoop log (`btsnoop_hci.log`) and of `btmon -w`.
///
/// A 16-byte header (`btsnoop\0`, version 1, datalink type, all big-endian) and then records, each a 24-byte
/// header — original length, included length, packet flags, cumulative drops, timestamp in microseconds since
/// midnight 1 January 0 AD — and the included bytes.
///
/// - SeeAlso: RFC 1761 (snoop) as adapted by the btsnoop format; BlueZ `src/shared/btsnoop.h` for the datalink
///   numbers and the monitor opcodes.
public struct BTSnoopFile: Sendable {
    /// The datalink types read here.
    public enum Datalink: UInt32, Sendable, Hashable {
        /// HCI UART without the packet-type byte (H1): flags bit 1 says command/event vs data.
        case hciUnencapsulated = 1001
        /// HCI UART (H4): each packet starts with its packet-type byte (Android's snoop log).
        case hciUART = 1002
        /// The Linux Bluetooth monitor (`btmon -w`): the flags carry the controller index and an opcode.
        case linuxMonitor = 2001

        var name: String {
            switch self {
            case .hciUnencapsulated: "HCI unencapsulated (1001)"
            case .hciUART: "HCI UART H4 (1002)"
            case .linuxMonitor: "Linux monitor (2001)"
            }
        }
    }

    /// One captured packet.
    public struct Record: Sendable, Hashable {
        /// 0-based position in the file.
        public var index: Int
        /// Byte offset of the record header in the file.
        public var offset: Int
        public var time: Date
        public var flags: UInt32
        /// Packets the capturing side dropped so far (cumulative).
        public var drops: UInt32
        /// The packet's length on the wire; larger than `data.count` when the capture cut it (a snap length).
        public var originalLength: Int
        public var data: [UInt8]
    }

    /// The stamp of the Unix epoch as btsnoop writers count it (Android's `kBtSnoopEpochDelta`, BlueZ's btsnoop
    /// writer, Wireshark's reader): 719,540 days of microseconds. The format says "since midnight 1 January 0 AD
    /// nominal Gregorian", but the proleptic Gregorian count is 719,528 days: the writers' constant is what
    /// files hold, so it is what times are read with.
    static let epochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    public let datalink: Datalink
    public let records: [Record]
    /// Set when the last record is cut short (a capture that was still being written): the records before it
    /// are kept.
    public let truncatedTail: BTSnoopError?

    /// Parses a whole capture held in memory (``BTSnoopReader`` reads one from a file a record at a time).
    /// - Throws: ``BTSnoopError`` when the header is not a btsnoop version 1 header with a datalink read here,
    ///   or a record's time is outside the supported years.
    public init(bytes: [UInt8]) throws(BTSnoopError) {
        self.datalink = try Self.datalink(header: Array(bytes.prefix(16)))
        var records: [Record] = []
        var offset = 16
        var tail: BTSnoopError?
        while offset < bytes.count {
            guard bytes.count - offset >= 24 else {
                tail = Self.cutInsideHeader(record: records.count, offset: offset)
                break
            }
            let header = RecordHeader(bytes, at: offset)
            let start = offset + 24
            guard header.included <= bytes.count - start else {
                tail = Self.cutInsideData(
                    record: records.count,
                    header: header,
                    available: bytes.count - start,
                    offset: offset
                )
                break
            }
            records.append(
                Record(
                    index: records.count,
                    offset: offset,
                    time: try header.time(record: records.count, offset: offset),
                    flags: header.flags,
                    drops: header.drops,
                    originalLength: header.original,
                    data: Array(bytes[start..<(start + header.included)])
                )
            )
            offset = start + header.included
        }
        self.records = records
        self.truncatedTail = tail
    }

    /// The 24 fixed bytes before each record's data.
    struct RecordHeader {
        var original: Int
        var included: Int
        var flags: UInt32
        var drops: UInt32
        var stamp: Int64

        init(_ bytes: [UInt8], at offset: Int) {
            original = Int(BTSnoopFile.uint32(bytes, offset))
            included = Int(BTSnoopFile.uint32(bytes, offset + 4))
            flags = BTSnoopFile.uint32(bytes, offset + 8)
            drops = BTSnoopFile.uint32(bytes, offset + 12)
            stamp = Int64(bitPattern: BTSnoopFile.uint64(bytes, offset + 16))
        }

        /// The record's time.
        /// - Parameters:
        ///   - record: its 0-based index, for the message.
        ///   - offset: the byte offset of its header, for the error.
        /// - Throws: ``BTSnoopError/Code/timeOutOfRange`` outside the years CareBridge stores.
        func time(record: Int, offset: Int) throws(BTSnoopError) -> Date {
            let micros = stamp &- BTSnoopFile.epochOffset
            let time = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
            // Refused, not clamped: a shifted time would put every reading of the capture on another day.
            guard Timestamp.isSupported(time) else {
                throw BTSnoopError(
                    code: .timeOutOfRange,
                    message: "record \(record + 1) has timestamp \(stamp) (\(Double(micros) / 1e6) s from "
                        + "1970), outside \(Timestamp.supportedRangeDescription): the capture is corrupt or its "
                        + "clock was not set; nothing was imported",
                    offset: offset + 16
                )
            }
            return time
        }
    }

    /// The datalink of a capture whose file starts with `header` (its first 16 bytes, or all of a shorter file).
    /// - Throws: ``BTSnoopError`` when it is not a btsnoop version 1 header with a datalink read here.
    static func datalink(header bytes: [UInt8]) throws(BTSnoopError) -> Datalink {
        let magic: [UInt8] = Array("btsnoop".utf8) + [0]
        guard bytes.count >= 16 else {
            if bytes.count >= 8 && Array(bytes[0..<8]) == magic || bytes.isEmpty {
                throw BTSnoopError(
                    code: .truncated,
                    message: "the file ends inside the 16-byte btsnoop header (\(bytes.count) bytes)",
                    offset: bytes.count
                )
            }
            throw BTSnoopError(code: .notBTSnoop, message: Self.notBTSnoopMessage(bytes), offset: 0)
        }
        guard Array(bytes[0..<8]) == magic else {
            throw BTSnoopError(code: .notBTSnoop, message: Self.notBTSnoopMessage(bytes), offset: 0)
        }
        let version = Self.uint32(bytes, 8)
        guard version == 1 else {
            throw BTSnoopError(
                code: .unsupportedVersion,
                message: "btsnoop version \(version) is not supported (only version 1)",
                offset: 8
            )
        }
        let type = Self.uint32(bytes, 12)
        guard let datalink = Datalink(rawValue: type) else {
            throw BTSnoopError(
                code: .unsupportedDatalink,
                message: "datalink type \(type) is not supported; supported are 1001 (HCI unencapsulated), "
                    + "1002 (HCI UART H4, Android's snoop log) and 2001 (Linux monitor, btmon -w)",
                offset: 12
            )
        }
        return datalink
    }

    /// The end of a capture that stops inside the 24-byte header of record `record` (0-based).
    static func cutInsideHeader(record: Int, offset: Int) -> BTSnoopError {
        BTSnoopError(
            code: .truncated,
            message: "record \(record + 1) is cut short inside its 24-byte header",
            offset: offset
        )
    }

    /// The end of a capture that stops `available` bytes into the data of record `record` (0-based).
    static func cutInsideData(record: Int, header: RecordHeader, available: Int, offset: Int) -> BTSnoopError {
        BTSnoopError(
            code: .truncated,
            message: "record \(record + 1) says \(header.included) bytes but the file ends after \(available)",
            offset: offset
        )
    }

    /// The microsecond timestamp a writer stores for `date` (for building captures).
    public static func timestamp(for date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) + epochOffset
    }

    private static func notBTSnoopMessage(_ bytes: [UInt8]) -> String {
        let head = bytes.prefix(8).map { byte -> String in
            (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "."
        }.joined()
        return "not a btsnoop capture (it starts with \"\(head)\", not \"btsnoop\"); Android writes one when "
            + "'Enable Bluetooth HCI snoop log' is on, and `btmon -w FILE` on Linux"
    }

    static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        UInt64(uint32(bytes, at)) << 32 | UInt64(uint32(bytes, at + 4))
    }
}
