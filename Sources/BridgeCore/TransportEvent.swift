public import BridgeFoundation
public import Foundation
import GATTDecoding

/// One thing a Bluetooth transport saw: the boundary between the radio world and the pipeline.
///
/// Live transports (BlueZ over D-Bus) and the replay transport both deliver these, so recorded sessions
/// flow through exactly the code a live device does.
public struct TransportEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case advertisement(Advertisement)
        case connected
        /// Services and their characteristics, once resolved.
        case servicesDiscovered([BluetoothUUID: [BluetoothUUID]])
        case value(CharacteristicValue)
        /// The bridge wrote a characteristic (a session step): recorded so a replay can answer it.
        case written(CharacteristicWrite)
        /// The device's session started or ended a stored-record download (``RecordDownload``). Made by the
        /// session machine and never recorded: a replay runs the session again and makes it again.
        case download(RecordDownload)
        /// `reason` as the transport words it: `remote`, `local`, `timeout`, …
        case disconnected(reason: String)
        case error(message: String)
    }

    /// Wall-clock time the event happened (for replay: `recordedAt + t`).
    public var time: Date
    /// Device address, e.g. `C4:7C:8D:6A:3E:10`.
    public var device: String
    public var kind: Kind

    public init(time: Date, device: String, kind: Kind) {
        self.time = time
        self.device = device
        self.kind = kind
    }
}

/// What an advertisement carried.
public struct Advertisement: Sendable, Hashable {
    public var name: String?
    public var rssi: Int?
    public var serviceUUIDs: [BluetoothUUID]
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Keyed by the 16-bit company identifier.
    public var manufacturerData: [UInt16: [UInt8]]

    public init(
        name: String? = nil,
        rssi: Int? = nil,
        serviceUUIDs: [BluetoothUUID] = [],
        serviceData: [BluetoothUUID: [UInt8]] = [:],
        manufacturerData: [UInt16: [UInt8]] = [:]
    ) {
        self.name = name
        self.rssi = rssi
        self.serviceUUIDs = serviceUUIDs
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
    }
}

/// A characteristic value as delivered.
public struct CharacteristicValue: Sendable, Hashable {
    public enum Delivery: String, Sendable, Hashable, Codable {
        case notification, indication, read
    }

    public var characteristic: BluetoothUUID
    public var bytes: [UInt8]
    public var delivery: Delivery

    public init(characteristic: BluetoothUUID, bytes: [UInt8], delivery: Delivery) {
        self.characteristic = characteristic
        self.bytes = bytes
        self.delivery = delivery
    }
}

/// A value the bridge wrote.
public struct CharacteristicWrite: Sendable, Hashable {
    public var characteristic: BluetoothUUID
    public var bytes: [UInt8]
    /// Write request (acknowledged by the device) rather than write command.
    public var withResponse: Bool

    public init(characteristic: BluetoothUUID, bytes: [UInt8], withResponse: Bool = true) {
        self.characteristic = characteristic
        self.bytes = bytes
        self.withResponse = withResponse
    }
}

/// A source of transport events: BlueZ, a replayed recording, or a test fake.
public protocol DeviceTransport: Sendable {
    /// The events, in order. The stream finishes when the transport stops (end of a recording, shutdown)
    /// and throws for failures the transport cannot recover from.
    func events() -> AsyncThrowingStream<TransportEvent, any Error>
}
