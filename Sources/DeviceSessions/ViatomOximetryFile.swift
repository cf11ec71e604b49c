public import GATTDecoding

/// An overnight oximetry recording as a Viatom device (Wellue O2Ring, Checkme O2) stores it, version 3.
///
/// As read by MackeyStingray/o2r (`o2r/o2file.py`, commit e8ad57f9): a 40-byte header — version (u16le, 3), the
/// start as year (u16le), month, day, hour, minute, second (the device's wall clock), the file size (u32le at byte
/// 9), the duration in seconds (u32le at byte 13), then summary values — followed by 5-byte records: SpO2 %, pulse
/// rate (bpm), an "oximetry invalid" flag, motion, vibration. The records are evenly spaced over the duration: one
/// every 2 or 4 seconds (o2r refuses a file whose spacing is neither).
public struct ViatomOximetryFile: Sendable, Hashable {
    /// One record.
    public struct Record: Sendable, Hashable {
        /// Seconds after the file's start.
        public var offset: Int
        public var oxygenSaturation: UInt8
        public var pulseRate: UInt8
        /// The device's own flag, or a SpO2 outside 10…100 % (o2r's rule): no reading at this moment.
        public var isInvalid: Bool
        public var motion: UInt8
        public var vibration: UInt8
        /// The record's 5 bytes as stored.
        public var bytes: [UInt8]
    }

    /// Why bytes are not a version 3 file.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case truncated(length: Int)
        case version(Int)
        case partialRecord(bytes: Int)
        case spacing(duration: Int, records: Int)
        case start(String)

        public var description: String {
            switch self {
            case .truncated(let length): "\(length) bytes are shorter than the 40-byte header"
            case .version(let version): "version \(version) files are not read (only version 3)"
            case .partialRecord(let bytes): "\(bytes) bytes after the header are not whole 5-byte records"
            case .spacing(let duration, let records):
                "\(records) records over \(duration) s are neither 2 nor 4 s apart"
            case .start(let text): "the start \(text) is not a date"
            }
        }
    }

    public static let headerLength = 40
    public static let recordLength = 5

    /// The start of the recording, the device's wall clock.
    public var start: DateTime
    public var duration: Int
    /// Seconds between records.
    public var interval: Int
    public var records: [Record]

    /// Reads a whole file.
    /// - Throws: ``Failure``; a file is read whole or not at all.
    public init(_ bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= Self.headerLength else { throw .truncated(length: bytes.count) }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let version = u16(0)
        guard version == 3 else { throw .version(version) }
        let (year, month, day) = (u16(2), Int(bytes[4]), Int(bytes[5]))
        let (hour, minute, second) = (Int(bytes[6]), Int(bytes[7]), Int(bytes[8]))
        guard let start = DateTime(checking: [year, month, day, hour, minute, second]), !start.isUnknown,
            year >= 2000
        else { throw .start("\(year)-\(month)-\(day) \(hour):\(minute):\(second)") }
        self.start = start
        let duration = u32(13)
        self.duration = duration
        let body = bytes.count - Self.headerLength
        guard body % Self.recordLength == 0 else { throw .partialRecord(bytes: body) }
        let count = body / Self.recordLength
        guard count > 0, duration % count == 0, [2, 4].contains(duration / count) else {
            throw .spacing(duration: duration, records: count)
        }
        let interval = duration / count
        self.interval = interval
        records = (0..<count).map { index in
            let at = Self.headerLength + index * Self.recordLength
            let oxygen = bytes[at]
            return Record(
                offset: index * interval,
                oxygenSaturation: oxygen,
                pulseRate: bytes[at + 1],
                isInvalid: bytes[at + 2] != 0 || oxygen < 10 || oxygen > 100,
                motion: bytes[at + 3],
                vibration: bytes[at + 4],
                bytes: Array(bytes[at..<at + Self.recordLength])
            )
        }
    }
}
