internal import CBluetooth
// The one file that talks to libbluetooth (BlueZ's C library): address parsing and formatting.
import Foundation

/// A Bluetooth device address (`AA:BB:CC:DD:EE:FF`), validated by libbluetooth.
public struct BluetoothAddress: Sendable, Hashable, CustomStringConvertible {
    /// Upper-case, colon-separated, as BlueZ writes it in `Device1.Address`.
    public let description: String

    /// Parses `aa:bb:cc:dd:ee:ff` (any case); nil when libbluetooth's `bachk` rejects it.
    public init?(_ text: String) {
        guard text.count == 17, bachk(text) == 0 else { return nil }
        var address = bdaddr_t()
        guard str2ba(text, &address) == 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 18)
        guard ba2str(&address, &buffer) >= 0 else { return nil }
        description = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .uppercased()
    }

    /// The object-path element BlueZ uses: `dev_AA_BB_CC_DD_EE_FF`.
    public var pathElement: String { "dev_" + description.replacingOccurrences(of: ":", with: "_") }
}
