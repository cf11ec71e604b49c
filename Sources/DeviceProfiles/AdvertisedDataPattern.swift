public import BridgeCore
public import BridgeFoundation
public import DeviceSessions
import FrameDecoding
import GATTDecoding

/// One `manufacturerData` or `serviceDataPatterns` entry of a profile's `match`: the advertisement carries a value
/// for this company id (or Service Data UUID) and the value passes the ``ValuePattern``.
public struct AdvertisedDataPattern: Sendable, Hashable, CustomStringConvertible {
    /// Whose value is tested.
    public enum Key: Sendable, Hashable, CustomStringConvertible {
        /// Manufacturer Data of this 16-bit company identifier (the value is what follows the id).
        case company(UInt16)
        /// Service Data of this UUID.
        case serviceData(BluetoothUUID)

        public var description: String {
            switch self {
            case .company(let id): "manufacturer data of company \(Self.hex(id))"
            case .serviceData(let uuid): "service data \(uuid)"
            }
        }

        static func hex(_ id: UInt16) -> String {
            let digits = String(id, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
    }

    public var key: Key
    public var pattern: ValuePattern

    public init(key: Key, pattern: ValuePattern = ValuePattern()) {
        self.key = key
        self.pattern = pattern
    }

    /// The advertisement's value for ``key``, if it carries one.
    public func value(in advertisement: Advertisement) -> [UInt8]? {
        switch key {
        case .company(let id): advertisement.manufacturerData[id]
        case .serviceData(let uuid): advertisement.serviceData[uuid]
        }
    }

    /// True when the advertisement carries the value and it passes the pattern.
    public func matches(_ advertisement: Advertisement) -> Bool {
        guard let value = value(in: advertisement) else { return false }
        return pattern.matches(value)
    }

    public var description: String { "\(key) (\(pattern))" }
}
