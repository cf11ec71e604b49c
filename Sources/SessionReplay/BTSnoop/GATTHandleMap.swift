public import BridgeFoundation
import GATTDecoding

/// What a capture's GATT discovery said about one device: its services' handle ranges and the value handle
/// and UUID of each characteristic. A device's database outlives a connection (a bonded device is often not
/// discovered again), so the importer keeps one map per device address.
public struct GATTHandleMap: Sendable, Hashable {
    public struct Service: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var start: UInt16
        public var end: UInt16
    }

    public struct Characteristic: Sendable, Hashable {
        public var uuid: BluetoothUUID
        /// The handle of its declaration (0x2803); the value follows it.
        public var declaration: UInt16
        public var value: UInt16
    }

    public private(set) var services: [Service] = []
    public private(set) var characteristics: [UInt16: Characteristic] = [:]
    /// Handles Find Information named as descriptors (CCCD and the like).
    public private(set) var descriptors: [UInt16: BluetoothUUID] = [:]

    public init() {}

    public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty }

    public mutating func addService(_ uuid: BluetoothUUID, start: UInt16, end: UInt16) {
        services.removeAll { $0.start == start }
        services.append(Service(uuid: uuid, start: start, end: end))
    }

    public mutating func addCharacteristic(_ uuid: BluetoothUUID, declaration: UInt16, value: UInt16) {
        characteristics[value] = Characteristic(uuid: uuid, declaration: declaration, value: value)
    }

    /// A handle named by Find Information: a descriptor unless it is a known value handle or a declaration.
    public mutating func addInformation(_ uuid: BluetoothUUID, handle: UInt16) {
        guard characteristics[handle] == nil, let short = uuid.shortValue else { return }
        if (0x2900...0x29FF).contains(short) { descriptors[handle] = uuid }
    }

    /// The service whose handle range holds `handle`.
    public func service(containing handle: UInt16) -> BluetoothUUID? {
        services.first { $0.start <= handle && handle <= $0.end }?.uuid
    }

    /// The characteristic whose value lives at `handle`.
    public func characteristic(at handle: UInt16) -> BluetoothUUID? { characteristics[handle]?.uuid }

    /// Services and their characteristics, as a recording's `services` event lists them.
    public var serviceTable: [BluetoothUUID: [BluetoothUUID]] {
        var table: [BluetoothUUID: [BluetoothUUID]] = [:]
        let sorted = characteristics.values.sorted { $0.declaration < $1.declaration }
        for service in services {
            table[service.uuid, default: []] +=
                sorted
                .filter { $0.declaration >= service.start && $0.declaration <= service.end }
                .map(\.uuid)
        }
        return table
    }
}
