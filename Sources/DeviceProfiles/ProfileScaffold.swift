public import BridgeCore
public import BridgeFoundation
import GATTDecoding

/// Drafts a profile from a recorded session (`carebridge profile scaffold`): the match from the advertisements, the
/// notified, indicated and read characteristics (a standard one with its compiled decoder, a vendor one with
/// `frames` stubs selected by the values' common first byte), the bridge's writes as session steps, and every
/// notified, indicated or advertised value as a fixture whose `expect` the user fills in. Pure: events in, JSON and notes out.
public struct ProfileScaffold: Sendable {
    /// The drafted profile (loads as it is; frames have `_todo` notes instead of fields).
    public var profile: JSONObject
    /// What could not be inferred, for the user.
    public var notes: [String]

    /// Drafts a profile for the device with the most received values (or advertisements) in `events`.
    /// - Parameter id: the profile id (e.g. the recording's file name).
    public init(events: [TransportEvent], id: String) {
        notes = []
        var activity: [String: Int] = [:]
        var order: [String] = []
        for event in events {
            if activity[event.device] == nil { order.append(event.device) }
            let weight: Int
            switch event.kind {
            case .value: weight = 1000
            case .advertisement: weight = 1
            default: weight = 0
            }
            activity[event.device, default: 0] += weight
        }
        let device = order.max { (activity[$0] ?? 0) < (activity[$1] ?? 0) } ?? ""
        if order.count > 1 {
            notes.append("the recording has \(order.count) devices; drafted for \(device), the most active")
        }
        let mine = events.filter { $0.device == device }

        // The advertisement, merged over the recording.
        var name: String?
        var services: [BluetoothUUID] = []
        var companies: [UInt16] = []
        var serviceDataValues: [BluetoothUUID: [[UInt8]]] = [:]
        var manufacturerValues: [UInt16: [[UInt8]]] = [:]
        var characteristicValues: [BluetoothUUID: (delivery: CharacteristicValue.Delivery, values: [[UInt8]])] = [:]
        var characteristicOrder: [BluetoothUUID] = []
        var writes: [CharacteristicWrite] = []
        var discovered: Set<BluetoothUUID> = []
        for event in mine {
            switch event.kind {
            case .advertisement(let ad):
                if name == nil, let advertised = ad.name, !advertised.isEmpty { name = advertised }
                for uuid in ad.serviceUUIDs where !services.contains(uuid) { services.append(uuid) }
                for (company, value) in ad.manufacturerData.sorted(by: { $0.key < $1.key }) {
                    if !companies.contains(company) { companies.append(company) }
                    if manufacturerValues[company]?.last != value {
                        manufacturerValues[company, default: []].append(value)
                    }
                }
                for (uuid, value) in ad.serviceData.sorted(by: { $0.key.description < $1.key.description })
                where serviceDataValues[uuid]?.last != value {
                    serviceDataValues[uuid, default: []].append(value)
                }
            case .servicesDiscovered(let map):
                discovered.formUnion(map.keys)
            case .value(let value):
                if characteristicValues[value.characteristic] == nil {
                    characteristicOrder.append(value.characteristic)
                    characteristicValues[value.characteristic] = (value.delivery, [])
                }
                characteristicValues[value.characteristic]?.values.append(value.bytes)
            case .written(let write):
                writes.append(write)
            default:
                break
            }
        }

        // match
        var match = JSONObject()
        if let name { match["name"] = .string(Self.glob(name)) }
        let generic: Set<BluetoothUUID> = [
            BluetoothUUID(0x180A), BluetoothUUID(0x180F), BluetoothUUID(0x1800), BluetoothUUID(0x1801),
        ]
        var advertisedServices = services.filter { !generic.contains($0) }
        if advertisedServices.isEmpty, name == nil {
            advertisedServices = discovered.filter { !generic.contains($0) }.sorted { $0.description < $1.description }
            if !advertisedServices.isEmpty {
                notes.append("no advertisement in the recording: match.serviceUUIDs come from the discovered services")
            }
        }
        if !advertisedServices.isEmpty {
            match["serviceUUIDs"] = .array(advertisedServices.map { .string($0.description) })
        }
        if let company = companies.first {
            match["manufacturerData"] = .array([.object(["company": .string(AdvertisedDataPattern.Key.hex(company))])])
        }
        if match.keys.isEmpty {
            notes.append("nothing in the recording identifies the device: fill in match (name, serviceUUIDs, …)")
            match["name"] = .string("TODO*")
        } else if name == nil {
            notes.append(
                "no advertised name: match uses only services / manufacturer data; check it is specific enough"
            )
        }
        match["priority"] = .int(30)

        var profile: JSONObject = [
            "id": .string(id), "name": .string("TODO: brand and model (drafted from a recording)"),
            "match": .object(match),
        ]
        let broadcast = characteristicValues.isEmpty && !(serviceDataValues.isEmpty && manufacturerValues.isEmpty)
        profile["link"] = .string(broadcast ? "broadcast" : "gatt")

        var characteristics: [JSONValue] = []
        for uuid in characteristicOrder {
            guard let (delivery, values) = characteristicValues[uuid] else { continue }
            var entry: JSONObject = ["uuid": .string(uuid.description)]
            entry["use"] = .string(delivery == .indication ? "indicate" : delivery == .read ? "read" : "notify")
            if let standard = DecoderCatalog.decoder(forCharacteristic: uuid) {
                entry["decoder"] = .string(standard.identifier)
                if delivery == .read { entry["role"] = .string(Self.readRole(standard)) }
            } else {
                entry["frames"] = .array(Self.frames(values, label: "characteristic \(uuid)", notes: &notes))
            }
            characteristics.append(.object(entry))
        }
        var sessionSteps: [JSONValue] = []
        for write in writes {
            if !characteristicOrder.contains(write.characteristic),
                !characteristics.contains(where: {
                    $0.objectValue?["uuid"]?.stringValue == write.characteristic.description
                })
            {
                characteristics.append(
                    .object(["uuid": .string(write.characteristic.description), "use": .string("write")])
                )
            }
            sessionSteps.append(
                .object(["write": .string(write.characteristic.description), "value": .string(Self.hex(write.bytes))])
            )
        }
        if !characteristics.isEmpty { profile["characteristics"] = .array(characteristics) }
        if !sessionSteps.isEmpty {
            profile["session"] = .object([
                "_todo": .string(
                    "the bridge's writes as recorded; replace values that change (time, user, consent code) by template "
                        + "variables and add awaits where the device answers"
                ),
                "steps": .array(sessionSteps),
            ])
            notes.append(
                "the \(sessionSteps.count) write(s) became session steps with their recorded bytes: which bytes "
                    + "vary (time, user, consent code) and what the device answers"
            )
        }
        if broadcast {
            var serviceData: [JSONValue] = []
            for (uuid, values) in serviceDataValues.sorted(by: { $0.key.description < $1.key.description }) {
                serviceData.append(
                    .object([
                        "uuid": .string(uuid.description),
                        "frames": .array(Self.frames(values, label: "service data \(uuid)", notes: &notes)),
                    ])
                )
            }
            if !serviceData.isEmpty { profile["serviceData"] = .array(serviceData) }
            var manufacturer: [JSONValue] = []
            for (company, values) in manufacturerValues.sorted(by: { $0.key < $1.key }) {
                manufacturer.append(
                    .object([
                        "company": .string(AdvertisedDataPattern.Key.hex(company)),
                        "frames": .array(
                            Self.frames(
                                values,
                                label: "manufacturer data \(AdvertisedDataPattern.Key.hex(company))",
                                notes: &notes
                            )
                        ),
                    ])
                )
            }
            if !manufacturer.isEmpty { profile["manufacturerData"] = .array(manufacturer) }
        }
        if characteristicValues.isEmpty, !broadcast {
            notes.append("the device sent no values in the recording: no characteristics to draft")
        }

        // fixtures: every received value, expect left for the user.
        var advertisement = JSONObject()
        if let name { advertisement["name"] = .string(name) }
        if !services.isEmpty { advertisement["serviceUUIDs"] = .array(services.map { .string($0.description) }) }
        if let company = companies.first, let value = manufacturerValues[company]?.first {
            advertisement["manufacturerData"] = .object([
                AdvertisedDataPattern.Key.hex(company): .string(Self.hex(value))
            ])
        }
        var fixtures: [JSONValue] = []
        var counter = 0
        func fixture(_ source: String, _ key: String, _ value: [UInt8]) {
            counter += 1
            var object: JSONObject = [
                "name": .string("recorded value \(counter) (\(source) \(key))"),
                "origin": .string("capture: the recording this profile was drafted from"),
                "_todo": .string("fill expect with the true values the device showed (empty: nothing is stored)"),
            ]
            if counter == 1, !advertisement.keys.isEmpty { object["advertisement"] = .object(advertisement) }
            object["values"] = .array([.object([source: .string(key), "hex": .string(Self.hex(value))])])
            object["expect"] = .array([])
            fixtures.append(.object(object))
        }
        for uuid in characteristicOrder {
            guard let (delivery, values) = characteristicValues[uuid], delivery != .read else { continue }
            for value in values { fixture("characteristic", uuid.description, value) }
        }
        if broadcast {
            for (uuid, values) in serviceDataValues.sorted(by: { $0.key.description < $1.key.description }) {
                for value in values { fixture("serviceData", uuid.description, value) }
            }
            for (company, values) in manufacturerValues.sorted(by: { $0.key < $1.key }) {
                for value in values { fixture("manufacturerData", AdvertisedDataPattern.Key.hex(company), value) }
            }
        }
        if !fixtures.isEmpty { profile["fixtures"] = .array(fixtures) }
        profile["notes"] = .string(
            "TODO: what the device is, what it reads and does not, where the protocol facts come from"
        )
        self.profile = profile
    }

    /// Frame stubs for the values of one entry: one per common first byte, with the lengths seen.
    static func frames(_ values: [[UInt8]], label: String, notes: inout [String]) -> [JSONValue] {
        var groups: [UInt8?: [[UInt8]]] = [:]
        var order: [UInt8?] = []
        for value in values {
            let key = value.first
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(value)
        }
        if order.count > 4 {
            notes.append(
                "\(label): \(order.count) different first bytes; one catch-all frame drafted, split it by hand"
            )
            return [stub(name: "value", prefix: nil, values: values)]
        }
        return order.map { first in
            stub(name: first.map { "frame\(hex([$0]))" } ?? "empty", prefix: first, values: groups[first] ?? [])
        }
    }

    static func stub(name: String, prefix: UInt8?, values: [[UInt8]]) -> JSONValue {
        var select = JSONObject()
        if let prefix { select["prefix"] = .string(hex([prefix])) }
        let lengths = values.map(\.count)
        if let low = lengths.min(), let high = lengths.max() {
            select["length"] = low == high ? .int(low) : .object(["min": .int(low), "max": .int(high)])
        }
        return .object([
            "name": .string(name),
            "select": .object(select),
            "_todo": .string(
                "\(values.count) value(s) seen, e.g. \(hex(values.first ?? [])): add fields (at, type, scale), final, "
                    + "samples"
            ),
            "fields": .array([]),
        ])
    }

    static func readRole(_ type: any GATTPayload.Type) -> String {
        if type is any DeviceIdentityString.Type { return "identity" }
        if type is any DeviceClockReading.Type { return "clock" }
        return "info"
    }

    /// `QN-Scale` → `QN-Scale*`; `BLEsmart_00000116` → `BLEsmart_*`: a trailing serial (four or more hex digits)
    /// is dropped, a model number such as `WS-100` kept.
    static func glob(_ name: String) -> String {
        let serial = name.reversed().prefix { $0.isHexDigit || $0 == ":" }.count
        let stem = name.dropLast(serial)
        guard serial >= 4, stem.count >= 2 else { return name + "*" }
        return String(stem) + "*"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}
