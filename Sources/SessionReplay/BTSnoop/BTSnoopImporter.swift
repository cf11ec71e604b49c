public import BridgeCore
public import BridgeFoundation
import Foundation
import GATTDecoding

/// Turns an HCI capture into the events a recording holds: advertisements, connections, services, and the
/// values the device sent (notifications, indications, read responses) and the collector wrote.
///
/// ACL fragments are reassembled into L2CAP PDUs per connection and direction; the ATT channel (CID 4) is read
/// with its requests and responses paired, so that the capture's own service discovery gives each handle its
/// UUID. The capture is taken to be the collector's (a phone's snoop log, `btmon` on the bridge): values are
/// what the connected peer sent, writes what the local host sent. Pure: no I/O.
public struct BTSnoopImporter {
    public struct Options: Sendable {
        /// Handles whose UUID the capture's discovery does not show (a bonded device not discovered again):
        /// value handle → characteristic. Applies to every device.
        public var handles: [UInt16: BluetoothUUID]
        /// The service of each named handle, for the recording's `services` line (profiles claim a device by
        /// its services): as given, else the one the SIG defines the characteristic in (``ServiceMembership``).
        /// A handle missing here has no service the importer could tell.
        public var handleServices: [UInt16: BluetoothUUID]
        /// Keep only these devices' events (addresses as `AA:BB:CC:DD:EE:FF`, any case); nil keeps all.
        public var devices: Set<String>?

        public init(
            handles: [UInt16: BluetoothUUID] = [:],
            handleServices: [UInt16: BluetoothUUID] = [:],
            devices: Set<String>? = nil
        ) {
            self.handles = handles
            var services = handleServices.filter { handles[$0.key] != nil }
            for (handle, characteristic) in handles where services[handle] == nil {
                services[handle] = ServiceMembership.service(of: characteristic, neighbours: handles.values)
            }
            self.handleServices = services
            self.devices = devices.map { Set($0.map { $0.uppercased() }) }
        }

        /// Named handles whose service could not be told (a vendor characteristic, or a Record Access Control
        /// Point with no measurement named beside it), in handle order.
        public var handlesWithoutService: [UInt16] {
            handles.keys.filter { handleServices[$0] == nil }.sorted()
        }

        /// The named handles' services and characteristics, as a `services` line lists them.
        var namedServiceTable: [BluetoothUUID: [BluetoothUUID]] {
            var table: [BluetoothUUID: [BluetoothUUID]] = [:]
            for (handle, service) in handleServices.sorted(by: { $0.key < $1.key }) {
                guard let characteristic = handles[handle] else { continue }
                table[service, default: []].append(characteristic)
            }
            return table
        }
    }

    public struct Statistics: Sendable, Hashable {
        public var packets = 0
        public var advertisements = 0
        public var connections = 0
        public var notifications = 0
        public var indications = 0
        public var reads = 0
        public var writes = 0
        /// Reads and writes of the GAP and GATT services (Device Name, Client Supported Features, …): the host
        /// stack's own traffic, which BlueZ never hands to the bridge either; left out.
        public var stackValues = 0
        /// Values and writes on handles with no known characteristic (left out, with a warning).
        public var unmappedValues = 0
        /// What the capturing side said it dropped.
        public var droppedPackets = 0
        /// Packets the capture cut short (a snap length).
        public var truncatedPackets = 0
    }

    public struct Result: Sendable {
        public var events: [TransportEvent]
        /// Things the user should know, each once: missing discovery, packets cut short, dropped packets.
        public var warnings: [String]
        public var statistics: Statistics
        /// The GATT map found for each device.
        public var handleMaps: [String: GATTHandleMap]
    }

    public let options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Imports a capture held in memory.
    public func importCapture(_ file: BTSnoopFile) -> Result {
        let ordered = zip(file.records, file.records.dropFirst()).allSatisfy { $0.time <= $1.time }
        var stream = Stream(options: options, datalink: file.datalink, timesNeverGoBack: ordered)
        var events: [TransportEvent] = []
        for record in file.records { events += stream.add(record) }
        var result = stream.finish(truncatedTail: file.truncatedTail)
        result.events = events + result.events
        return result
    }
}

// MARK: - The state machine

extension BTSnoopImporter {
    struct ConnectionKey: Hashable {
        var controller: UInt16
        var handle: UInt16
    }

    /// An ATT request waiting for its response.
    enum PendingRequest {
        case readByType(BluetoothUUID)
        case readByGroupType
        case findInformation
        case findByTypeValue(BluetoothUUID)
        case read(UInt16)
        case readBlob(UInt16)
    }

    struct Connection {
        var address: String
        /// L2CAP PDUs being reassembled, by direction.
        var partial: [HCIPacket.Direction: [UInt8]] = [:]
        /// The outstanding request of each side (ATT allows one at a time), by the direction it was sent in.
        var pending: [HCIPacket.Direction: PendingRequest] = [:]
        var servicesReported = false
        /// The host sent Disconnect for this connection.
        var hungUpLocally = false
        /// A read response waiting for Read Blob continuations before it becomes one `read` event.
        var longRead: (handle: UInt16, bytes: [UInt8], time: Date)?
    }

    struct State {
        let options: Options
        var statistics = Statistics()
        var events: [TransportEvent] = []
        var warnings: [String] = []
        var warned: Set<String> = []
        var connections: [ConnectionKey: Connection] = [:]
        var maps: [String: GATTHandleMap] = [:]
        /// The last advertisement of each address, so a scan response adds to it.
        var advertisements: [String: Advertisement] = [:]
        var unmapped: [String: Set<UInt16>] = [:]

        init(options: Options) {
            self.options = options
        }

        mutating func warn(_ message: String) {
            guard warned.insert(message).inserted else { return }
            warnings.append(message)
        }

        func wanted(_ address: String) -> Bool {
            options.devices.map { $0.contains(address) } ?? true
        }

        mutating func emit(_ kind: TransportEvent.Kind, device: String, at time: Date) {
            guard wanted(device) else { return }
            events.append(TransportEvent(time: time, device: device, kind: kind))
        }

        mutating func handle(_ packet: HCIPacket, at time: Date, record: Int) {
            switch packet.kind {
            case .event(let code, let parameters):
                handleEvent(code: code, parameters: parameters, controller: packet.controller, at: time)
            case .acl(let handle, let boundary, let data):
                handleACL(
                    ConnectionKey(controller: packet.controller, handle: handle),
                    boundary: boundary,
                    data: data,
                    direction: packet.direction,
                    at: time
                )
            case .malformed(let message):
                warn("packet \(record + 1): \(message); skipped")
            case .command(let bytes):
                // Disconnect (OGF 1, OCF 6): the host hangs up, so the Disconnection Complete that follows is
                // a local disconnect whatever reason the controller echoes.
                if packet.direction == .sent, bytes.count >= 5, bytes[0] == 0x06, bytes[1] == 0x04 {
                    let handle = (UInt16(bytes[3]) | UInt16(bytes[4]) << 8) & 0x0FFF
                    connections[ConnectionKey(controller: packet.controller, handle: handle)]?.hungUpLocally = true
                }
            case .other:
                break
            }
        }

        mutating func finish() {
            for key in connections.keys.sorted(by: { ($0.controller, $0.handle) < ($1.controller, $1.handle) }) {
                flushLongRead(key)
            }
            for (address, handles) in unmapped.sorted(by: { $0.key < $1.key }) {
                let list = handles.sorted().prefix(8).map { "0x" + hex16($0) }.joined(separator: ", ")
                warn(
                    "\(address): values on handle(s) \(list)\(handles.count > 8 ? ", …" : "") have no "
                        + "characteristic: the capture does not show their discovery (a bonded device is often not "
                        + "discovered again; capture its first connection, or give --handle 0xHHHH=UUID); they "
                        + "were left out"
                )
            }
        }

        // MARK: HCI events

        mutating func handleEvent(code: UInt8, parameters p: [UInt8], controller: UInt16, at time: Date) {
            switch code {
            case 0x05 where p.count >= 4:  // Disconnection Complete: status, handle, reason
                guard p[0] == 0 else { return }
                let key = ConnectionKey(controller: controller, handle: (UInt16(p[1]) | UInt16(p[2]) << 8) & 0x0FFF)
                guard connections[key] != nil else { return }
                flushLongRead(key)
                let connection = connections.removeValue(forKey: key)!
                let reason = connection.hungUpLocally ? "local" : Self.reason(p[3])
                emit(.disconnected(reason: reason), device: connection.address, at: time)
            case 0x3E where !p.isEmpty:  // LE Meta
                handleLEMeta(subevent: p[0], parameters: Array(p.dropFirst()), controller: controller, at: time)
            default:
                break
            }
        }

        mutating func handleLEMeta(subevent: UInt8, parameters p: [UInt8], controller: UInt16, at time: Date) {
            switch subevent {
            case 0x01 where p.count >= 18, 0x0A where p.count >= 30:
                // (Enhanced) Connection Complete: status, handle, role, peer address type, peer address, …
                guard p[0] == 0 else { return }
                let handle = (UInt16(p[1]) | UInt16(p[2]) << 8) & 0x0FFF
                let address = Self.address(Array(p[5..<11]))
                connections[ConnectionKey(controller: controller, handle: handle)] = Connection(address: address)
                statistics.connections += 1
                emit(.connected, device: address, at: time)
            case 0x02 where !p.isEmpty:  // Advertising Report: reports of type, address type, address, data, RSSI
                var offset = 1
                for _ in 0..<Int(p[0]) {
                    guard p.count >= offset + 9 else { return }
                    let type = p[offset]
                    let address = Self.address(Array(p[(offset + 2)..<(offset + 8)]))
                    let length = Int(p[offset + 8])
                    guard p.count >= offset + 9 + length + 1 else { return }
                    let data = Array(p[(offset + 9)..<(offset + 9 + length)])
                    let rssi = Int(Int8(bitPattern: p[offset + 9 + length]))
                    advertise(address, data: data, rssi: rssi, scanResponse: type == 0x04, at: time)
                    offset += 10 + length
                }
            case 0x0D where !p.isEmpty:  // Extended Advertising Report
                var offset = 1
                for _ in 0..<Int(p[0]) {
                    guard p.count >= offset + 24 else { return }
                    let type = UInt16(p[offset]) | UInt16(p[offset + 1]) << 8
                    let address = Self.address(Array(p[(offset + 3)..<(offset + 9)]))
                    let rssi = Int(Int8(bitPattern: p[offset + 13]))
                    let length = Int(p[offset + 23])
                    guard p.count >= offset + 24 + length else { return }
                    let data = Array(p[(offset + 24)..<(offset + 24 + length)])
                    advertise(address, data: data, rssi: rssi, scanResponse: type & 0x08 != 0, at: time)
                    offset += 24 + length
                }
            default:
                break
            }
        }

        mutating func advertise(_ address: String, data: [UInt8], rssi: Int, scanResponse: Bool, at time: Date) {
            let base = scanResponse ? advertisements[address] ?? Advertisement() : Advertisement()
            let advertisement = AdvertisingData.parse(data, rssi: rssi == 127 ? nil : rssi, into: base)
            advertisements[address] = advertisement
            statistics.advertisements += 1
            emit(.advertisement(advertisement), device: address, at: time)
        }

        // MARK: ACL, L2CAP, ATT

        mutating func handleACL(
            _ key: ConnectionKey,
            boundary: UInt8,
            data: [UInt8],
            direction: HCIPacket.Direction,
            at time: Date
        ) {
            if connections[key] == nil {
                let address = "00:00:00:00:" + hex(UInt8(key.handle >> 8)) + ":" + hex(UInt8(key.handle & 0xFF))
                warn(
                    "ACL data on connection handle 0x\(hex16(key.handle)) before its connection event (the capture "
                        + "started during the connection): its events are attributed to \(address)"
                )
                connections[key] = Connection(address: address)
            }
            var buffer: [UInt8]
            if boundary == 0x01 {
                guard let partial = connections[key]!.partial[direction] else { return }  // a stray continuation
                buffer = partial + data
            } else {
                buffer = data
            }
            guard buffer.count >= 4 else {
                connections[key]!.partial[direction] = buffer
                return
            }
            let length = Int(UInt16(buffer[0]) | UInt16(buffer[1]) << 8)
            guard buffer.count >= 4 + length else {
                connections[key]!.partial[direction] = buffer
                return
            }
            connections[key]!.partial[direction] = nil
            let channel = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
            guard channel == 0x0004 else { return }  // ATT only
            handleATT(Array(buffer[4..<(4 + length)]), key: key, direction: direction, at: time)
        }

        mutating func handleATT(_ pdu: [UInt8], key: ConnectionKey, direction: HCIPacket.Direction, at time: Date) {
            guard let opcode = pdu.first else { return }
            let body = Array(pdu.dropFirst())
            let requester: HCIPacket.Direction = direction == .sent ? .received : .sent
            if opcode != 0x0C && opcode != 0x0D { flushLongRead(key) }
            let address = connections[key]!.address
            func u16(_ at: Int) -> UInt16 { UInt16(body[at]) | UInt16(body[at + 1]) << 8 }
            switch opcode {
            case 0x01 where body.count >= 4:  // Error Response
                connections[key]!.pending[requester] = nil
            case 0x04 where body.count >= 4:  // Find Information Request
                connections[key]!.pending[direction] = .findInformation
            case 0x05 where !body.isEmpty:  // Find Information Response: format, (handle, UUID)…
                guard case .findInformation = connections[key]!.pending[requester] else { return }
                connections[key]!.pending[requester] = nil
                guard direction == .received else { return }
                let size = body[0] == 1 ? 2 : 16
                var offset = 1
                while offset + 2 + size <= body.count {
                    if let uuid = AdvertisingData.uuid(Array(body[(offset + 2)..<(offset + 2 + size)])) {
                        maps[address, default: GATTHandleMap()].addInformation(uuid, handle: u16(offset))
                    }
                    offset += 2 + size
                }
            case 0x06 where body.count >= 6:  // Find By Type Value Request: start, end, type, value (a service UUID)
                if u16(4) == 0x2800, let uuid = AdvertisingData.uuid(Array(body.dropFirst(6))) {
                    connections[key]!.pending[direction] = .findByTypeValue(uuid)
                }
            case 0x07:  // Find By Type Value Response: (found handle, group end)…
                guard case .findByTypeValue(let uuid) = connections[key]!.pending[requester] else { return }
                connections[key]!.pending[requester] = nil
                guard direction == .received else { return }
                for offset in stride(from: 0, to: body.count - 3, by: 4) {
                    maps[address, default: GATTHandleMap()].addService(uuid, start: u16(offset), end: u16(offset + 2))
                }
            case 0x08 where body.count >= 6:  // Read By Type Request: start, end, type
                if let type = AdvertisingData.uuid(Array(body.dropFirst(4))) {
                    connections[key]!.pending[direction] = .readByType(type)
                }
            case 0x09 where !body.isEmpty:  // Read By Type Response: length, (handle, value)…
                guard case .readByType(let type) = connections[key]!.pending[requester] else { return }
                connections[key]!.pending[requester] = nil
                guard direction == .received, type == BluetoothUUID(0x2803) else { return }
                let size = Int(body[0])
                guard size == 7 || size == 21 else { return }
                var offset = 1
                while offset + size <= body.count {
                    // Characteristic declaration: properties, value handle, UUID.
                    if let uuid = AdvertisingData.uuid(Array(body[(offset + 5)..<(offset + size)])) {
                        maps[address, default: GATTHandleMap()].addCharacteristic(
                            uuid,
                            declaration: u16(offset),
                            value: u16(offset + 3)
                        )
                    }
                    offset += size
                }
            case 0x0A where body.count >= 2:  // Read Request
                connections[key]!.pending[direction] = .read(u16(0))
            case 0x0B:  // Read Response
                guard case .read(let handle) = connections[key]!.pending[requester] else { return }
                connections[key]!.pending[requester] = nil
                guard direction == .received else { return }
                connections[key]!.longRead = (handle, body, time)
            case 0x0C where body.count >= 4:  // Read Blob Request
                connections[key]!.pending[direction] = .readBlob(u16(0))
            case 0x0D:  // Read Blob Response: the next part of a long value
                guard case .readBlob(let handle) = connections[key]!.pending[requester] else { return }
                connections[key]!.pending[requester] = nil
                if let long = connections[key]!.longRead, long.handle == handle {
                    connections[key]!.longRead!.bytes += body
                } else {
                    flushLongRead(key)
                }
            case 0x10 where body.count >= 6:  // Read By Group Type Request
                connections[key]!.pending[direction] = .readByGroupType
            case 0x11 where !body.isEmpty:  // Read By Group Type Response: length, (start, end, UUID)…
                guard case .readByGroupType = connections[key]!.pending[requester] else { return }
                connections[key]!.pending[requester] = nil
                guard direction == .received else { return }
                let size = Int(body[0])
                guard size == 6 || size == 20 else { return }
                var offset = 1
                while offset + size <= body.count {
                    if let uuid = AdvertisingData.uuid(Array(body[(offset + 4)..<(offset + size)])) {
                        maps[address, default: GATTHandleMap()].addService(
                            uuid,
                            start: u16(offset),
                            end: u16(offset + 2)
                        )
                    }
                    offset += size
                }
            case 0x12 where body.count >= 2, 0x52 where body.count >= 2:  // Write Request / Write Command
                guard direction == .sent else { return }
                let handle = u16(0)
                let value = Array(body.dropFirst(2))
                if maps[address]?.descriptors[handle] != nil { return }  // subscribing (CCCD), not a write
                guard let uuid = characteristic(handle, address: address) else {
                    // A CCCD the capture did not name: the handle after a known value, written 00/01/02 00.
                    if value.count == 2, value[1] == 0, value[0] <= 2,
                        characteristic(handle &- 1, address: address) != nil
                    {
                        return
                    }
                    statistics.unmappedValues += 1
                    unmapped[address, default: []].insert(handle)
                    return
                }
                if isStackTraffic(handle, address: address) {
                    statistics.stackValues += 1
                    return
                }
                reportServices(key, at: time)
                statistics.writes += 1
                emit(
                    .written(CharacteristicWrite(characteristic: uuid, bytes: value, withResponse: opcode == 0x12)),
                    device: address,
                    at: time
                )
            case 0x1B where body.count >= 2, 0x1D where body.count >= 2:  // Notification / Indication
                guard direction == .received else { return }
                let delivery: CharacteristicValue.Delivery = opcode == 0x1B ? .notification : .indication
                deliver(Array(body.dropFirst(2)), handle: u16(0), delivery: delivery, key: key, at: time)
            case 0x23:  // Multiple Handle Value Notification: (handle, length, value)… — BlueZ peers negotiate it
                guard direction == .received else { return }
                var offset = 0
                while offset + 4 <= body.count {
                    let length = Int(u16(offset + 2))
                    guard offset + 4 + length <= body.count else { break }
                    let value = Array(body[(offset + 4)..<(offset + 4 + length)])
                    deliver(value, handle: u16(offset), delivery: .notification, key: key, at: time)
                    offset += 4 + length
                }
            default:
                break
            }
        }

        /// A notified or indicated value from the peer, on the characteristic its handle maps to.
        mutating func deliver(
            _ value: [UInt8],
            handle: UInt16,
            delivery: CharacteristicValue.Delivery,
            key: ConnectionKey,
            at time: Date
        ) {
            let address = connections[key]!.address
            guard let uuid = characteristic(handle, address: address) else {
                statistics.unmappedValues += 1
                unmapped[address, default: []].insert(handle)
                return
            }
            reportServices(key, at: time)
            if delivery == .notification { statistics.notifications += 1 } else { statistics.indications += 1 }
            emit(
                .value(CharacteristicValue(characteristic: uuid, bytes: value, delivery: delivery)),
                device: address,
                at: time
            )
        }

        /// A handle of the GAP (1800) or GATT (1801) service: the host stack's own housekeeping (Device Name,
        /// Appearance, Client Supported Features, Service Changed), not the collector's.
        func isStackTraffic(_ handle: UInt16, address: String) -> Bool {
            guard let service = maps[address]?.service(containing: handle) else { return false }
            return service == BluetoothUUID(0x1800) || service == BluetoothUUID(0x1801)
        }

        func characteristic(_ handle: UInt16, address: String) -> BluetoothUUID? {
            maps[address]?.characteristic(at: handle) ?? options.handles[handle]
        }

        /// The `services` event, once per connection, before its first value: what discovery found so far (in
        /// this connection or an earlier one of the same device).
        mutating func reportServices(_ key: ConnectionKey, at time: Date) {
            guard let connection = connections[key], !connection.servicesReported else { return }
            connections[key]!.servicesReported = true
            // What discovery found, and the handles named on the command line that it did not.
            var table = maps[connection.address]?.serviceTable ?? [:]
            for (service, characteristics) in options.namedServiceTable {
                let missing = characteristics.filter { table[service]?.contains($0) != true }
                if !missing.isEmpty { table[service, default: []] += missing }
            }
            guard !table.isEmpty else { return }
            emit(.servicesDiscovered(table), device: connection.address, at: time)
        }

        mutating func flushLongRead(_ key: ConnectionKey) {
            guard let long = connections[key]?.longRead else { return }
            connections[key]!.longRead = nil
            let address = connections[key]!.address
            guard let uuid = characteristic(long.handle, address: address) else {
                statistics.unmappedValues += 1
                unmapped[address, default: []].insert(long.handle)
                return
            }
            if isStackTraffic(long.handle, address: address) {
                statistics.stackValues += 1
                return
            }
            reportServices(key, at: long.time)
            statistics.reads += 1
            emit(
                .value(CharacteristicValue(characteristic: uuid, bytes: long.bytes, delivery: .read)),
                device: address,
                at: long.time
            )
        }

        /// `AA:BB:CC:DD:EE:FF` from the six little-endian address bytes of an HCI event.
        static func address(_ bytes: [UInt8]) -> String {
            bytes.reversed().map(hex).joined(separator: ":")
        }

        /// A disconnect reason in a recording's words (HCI error codes, Core Vol 1 Part F).
        static func reason(_ code: UInt8) -> String {
            switch code {
            case 0x08: "timeout"
            case 0x13, 0x14, 0x15: "remote"
            case 0x16: "local"
            case 0x3E: "failed-to-establish"
            default: "hci-error-0x" + hex(code)
            }
        }
    }
}
