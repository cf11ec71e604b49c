public import Foundation
public import GATTDecoding

/// What a frame field holds once read: a number (after bits, scale, offset, or a numeric lookup), a text (a
/// lookup such as a unit), a device wall-clock time, an instant (epoch seconds in UTC) or raw bytes.
public enum FrameFieldValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case text(String)
    case time(DateTime)
    case instant(Date)
    case bytes([UInt8])

    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    public var description: String {
        switch self {
        case .number(let value):
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .text(let text): text
        case .time(let time): time.description
        case .instant(let date): date.formatted(.iso8601)
        case .bytes(let bytes):
            bytes.map { String($0, radix: 16, uppercase: true) }.map {
                $0.count == 1 ? "0" + $0 : $0
            }.joined(separator: " ")
        }
    }
}
