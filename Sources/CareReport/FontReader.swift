import Foundation

/// Big-endian reads from a font file; out-of-range reads give 0 (callers check lengths where it matters).
struct FontReader {
    let bytes: [UInt8]

    func u16(_ at: Int) -> Int {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return Int(bytes[at]) << 8 | Int(bytes[at + 1])
    }

    func s16(_ at: Int) -> Int { Int(Int16(bitPattern: UInt16(u16(at)))) }

    func u32(_ at: Int) -> Int {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    func tag(_ at: Int) -> String {
        guard at >= 0, at + 4 <= bytes.count else { return "" }
        return String(decoding: bytes[at..<at + 4], as: UTF8.self)
    }
}
