public import BridgeFoundation
public import Foundation

/// One device of one patient as its bridge last described it: what the device said about itself, its battery
/// and when the patient's last reading from it was taken (`carebridge hub status`'s devices).
///
/// On the wire it is a message of kind `device` (``SyncMessage/Kind/device``) whose id is the device's key and
/// whose body is ``body``; times are as the bridge wrote them (ISO 8601 with its offset).
public struct HubDevice: Sendable, Hashable {
    public var bridge: String
    public var patient: String
    /// The device's key on the bridge: its address, else its serial, else its name.
    public var key: String
    public var address: String?
    public var name: String?
    public var model: String?
    public var serial: String?
    public var firmware: String?
    /// Battery level in percent, and when it was read.
    public var battery: Int?
    public var batteryAt: String?
    /// When the patient's last reading from it was taken (nil: registered, not heard from).
    public var lastSeen: String?
    /// When the hub stored these facts.
    public var receivedAt: Date

    public init(bridge: String, patient: String, key: String, body: JSONValue, receivedAt: Date) {
        let object = body.objectValue ?? [:]
        self.bridge = bridge
        self.patient = patient
        self.key = key
        address = object["address"]?.stringValue
        name = object["name"]?.stringValue
        model = object["model"]?.stringValue
        serial = object["serial"]?.stringValue
        firmware = object["firmware"]?.stringValue
        battery = object["battery"]?.doubleValue.map { Int($0) }
        batteryAt = object["batteryAt"]?.stringValue
        lastSeen = object["lastSeen"]?.stringValue
        self.receivedAt = receivedAt
    }

    /// A device's facts as a bridge sends them.
    /// - Parameters:
    ///   - identity: address, name, manufacturer, model, serial, firmware, hardware, software, profile (nil: not
    ///     known).
    ///   - battery: the level in percent and when it was read, as the bridge writes times.
    ///   - lastSeen: when the patient's last reading from it was taken.
    public static func body(
        identity: [String: String?],
        battery: (level: Int, at: String)?,
        lastSeen: String?
    )
        -> JSONValue
    {
        var object: JSONObject = [:]
        for (key, value) in identity { object[key] = value.map { .string($0) } ?? .null }
        object["battery"] = battery.map { .int($0.level) } ?? .null
        object["batteryAt"] = battery.map { .string($0.at) } ?? .null
        object["lastSeen"] = lastSeen.map { .string($0) } ?? .null
        return .object(object)
    }

    /// The device as JSON (`hub status --json`'s `devices`).
    public var json: JSONValue {
        let text = { (value: String?) -> JSONValue in value.map { .string($0) } ?? .null }
        return .object([
            "bridge": .string(bridge), "patient": .string(patient), "device": .string(key),
            "address": text(address), "name": text(name), "model": text(model), "serial": text(serial),
            "firmware": text(firmware), "battery": battery.map { .int($0) } ?? .null, "batteryAt": text(batteryAt),
            "lastSeen": text(lastSeen), "receivedAt": .string(ISO8601DateFormatter().string(from: receivedAt)),
        ])
    }
}
