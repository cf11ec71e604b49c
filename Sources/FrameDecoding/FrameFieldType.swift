/// How a frame field's bytes are read (`type` in a field).
///
/// Integers are little- or big-endian as named; `sfloat`/`float` are the IEEE-11073 16/32-bit floats
/// (little-endian); the time types give a wall-clock ``FrameFieldValue/time(_:)``.
public enum FrameFieldType: String, Sendable, Hashable, CaseIterable {
    case u8, s8, u16le, u16be, s16le, s16be, u24le, u24be, u32le, u32be, s32le, s32be
    case sfloat, float
    case bcd8
    case bytes
    /// SIG Date Time: year (u16le), month, day, hours, minutes, seconds (7 bytes).
    case dateTime
    /// Seconds since 1970-01-01 UTC.
    case epoch32le, epoch32be
    /// Local wall-clock seconds since 2000-01-01 00:00.
    case epoch2000le, epoch2000be
    /// Six BCD bytes yy mm dd hh mm ss (year 2000 + yy), local time.
    case bcdDateTime
    /// Six plain bytes yy mm dd hh mm ss (year 2000 + yy), local time.
    case ymdhms

    /// Bytes read; nil for `bytes` (its `length` says).
    public var width: Int? {
        switch self {
        case .u8, .s8, .bcd8: 1
        case .u16le, .u16be, .s16le, .s16be, .sfloat: 2
        case .u24le, .u24be: 3
        case .u32le, .u32be, .s32le, .s32be, .float, .epoch32le, .epoch32be, .epoch2000le, .epoch2000be: 4
        case .bcdDateTime, .ymdhms: 6
        case .dateTime: 7
        case .bytes: nil
        }
    }

    /// True for the plain integer types (which `bits`, `scale`, `lookup`, `absent` and `outOfRange` apply to).
    public var isInteger: Bool {
        switch self {
        case .u8, .s8, .u16le, .u16be, .s16le, .s16be, .u24le, .u24be, .u32le, .u32be, .s32le, .s32be, .bcd8: true
        default: false
        }
    }

    /// True for the types that give a time.
    public var isTime: Bool {
        switch self {
        case .dateTime, .epoch32le, .epoch32be, .epoch2000le, .epoch2000be, .bcdDateTime, .ymdhms: true
        default: false
        }
    }

    /// The unsigned integer of `bytes` in this type's byte order (integers and epoch types).
    func unsigned(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        let littleEndian: Bool
        switch self {
        case .u16be, .s16be, .u24be, .u32be, .s32be, .epoch32be, .epoch2000be: littleEndian = false
        default: littleEndian = true
        }
        let ordered = littleEndian ? Array(bytes.reversed()) : Array(bytes)
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The integer a plain integer type reads (sign-extended for the signed ones; BCD decoded).
    func integer(_ bytes: ArraySlice<UInt8>) -> Int? {
        let raw = unsigned(bytes)
        switch self {
        case .s8: return Int(Int8(truncatingIfNeeded: raw))
        case .s16le, .s16be: return Int(Int16(truncatingIfNeeded: raw))
        case .s32le, .s32be: return Int(Int32(truncatingIfNeeded: raw))
        case .bcd8:
            let byte = UInt8(truncatingIfNeeded: raw)
            guard byte >> 4 < 10, byte & 0x0F < 10 else { return nil }
            return Int(byte >> 4) * 10 + Int(byte & 0x0F)
        default: return Int(raw)
        }
    }
}
