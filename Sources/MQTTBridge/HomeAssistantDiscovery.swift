public import BridgeCore
public import BridgeFoundation
public import Foundation

/// Builds the MQTT messages that make CareBridge samples appear in Home Assistant: one retained discovery
/// config per device and quantity type, and a state message per sample.
///
/// Topics:
/// - config: `<discoveryPrefix>/sensor/<node>/<object>/config`, node `carebridge_<device>`, object `<type>`;
/// - state: `<topicPrefix>/<device>/<type>`, a JSON object whose `id` is the sample id, so consumers can drop
///   repeats of an at-least-once delivery;
/// - availability: per publisher (``Publisher``), `<topicPrefix>/status` for the bridge with `online`/`offline` (its MQTT
///   last will); sample sensors have none: a reading stays true when the bridge stops, and the publisher's
///   connectivity sensor says whether it runs.
///
/// `<device>` is the device key (address, serial or name) reduced to `[a-z0-9_-]`, as Home Assistant wants
/// for node and object ids and so that it is one safe topic level.
///
/// Per patient (a store with several patients, see SampleStateChannel): the state topic gains the patient as a level,
/// `<topicPrefix>/<patient>/<device>/<type>`, and each patient's readings of a shared device are a Home Assistant
/// device of their own, node `carebridge_<patient>_<device>`, named `<device name> (<patient name>)`. `<patient>`
/// is the patient id reduced like a device key.
///
/// - SeeAlso: Home Assistant, "MQTT Discovery" and the `sensor` platform options.
public struct HomeAssistantDiscovery: Sendable, Hashable {
    /// Home Assistant's discovery prefix, `homeassistant` unless configured otherwise.
    public var discoveryPrefix: String
    /// First level of the state and availability topics.
    public var topicPrefix: String
    /// CareBridge's version, shown as the discovery origin.
    public var bridgeVersion: String?

    public static let availablePayload = "online"
    public static let notAvailablePayload = "offline"

    public init(
        discoveryPrefix: String = "homeassistant",
        topicPrefix: String = "carebridge",
        bridgeVersion: String? = nil
    ) {
        self.discoveryPrefix = discoveryPrefix
        self.topicPrefix = topicPrefix
        self.bridgeVersion = bridgeVersion
    }

    /// One MQTT message to publish: topic, JSON payload and whether the broker should retain it.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: JSONValue
        public var retain: Bool
    }

    // MARK: - Topics

    /// Where the bridge (`run`) announces `online` and its last will says `offline`.
    public var availabilityTopic: String { "\(topicPrefix)/status" }

    /// `carebridge/<device>/<type>` for a device (nil: manually entered samples); `carebridge/<patient>/<device>/
    /// <type>` with a patient.
    public func stateTopic(device: DeviceIdentity?, type: QuantityType, patient: PatientTag? = nil) -> String {
        stateTopic(deviceKey: device?.key, type: type, patient: patient)
    }

    /// The state topic for a device key as the store keeps it (nil: manually entered samples).
    public func stateTopic(deviceKey: String?, type: QuantityType, patient: PatientTag? = nil) -> String {
        let level = patient.map { "\(Self.deviceID(key: $0.id))/" } ?? ""
        return "\(topicPrefix)/\(level)\(Self.deviceID(key: deviceKey))/\(type.rawValue)"
    }

    /// `<prefix>/sensor/carebridge_[<patient>_]<device>/<type>/config`.
    public func configTopic(device: DeviceIdentity?, type: QuantityType, patient: PatientTag? = nil) -> String {
        "\(discoveryPrefix)/sensor/\(Self.nodeID(device, patient: patient))/\(Self.objectID(type))/config"
    }

    /// A device key reduced to `[a-z0-9_-]` (`AA:BB:…` becomes `aa_bb_…`); `manual` without a device.
    public static func deviceID(_ device: DeviceIdentity?) -> String {
        deviceID(key: device?.key)
    }

    /// ``deviceID(_:)`` for a device key as the store keeps it (nil: manually entered samples).
    public static func deviceID(key: String?) -> String {
        guard let key else { return "manual" }
        let sanitized = String(
            key.lowercased().unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "0"..."9", "_", "-": Character(scalar)
                default: "_"
                }
            }
        )
        return sanitized.isEmpty ? "unknown" : sanitized
    }

    static func nodeID(_ device: DeviceIdentity?, patient: PatientTag? = nil) -> String {
        "carebridge_\(patient.map { "\(deviceID(key: $0.id))_" } ?? "")\(deviceID(device))"
    }
    static func objectID(_ type: QuantityType) -> String { type.rawValue }

    // MARK: - Messages

    /// The retained discovery config for samples of `type` from `device` (of `patient`, when per patient).
    public func config(device: DeviceIdentity?, type: QuantityType, patient: PatientTag? = nil) -> Message {
        let unit = type.canonicalUnit
        var config: JSONObject = [
            "name": .string(Self.entityName(type)),
            "unique_id": .string("\(Self.nodeID(device, patient: patient))_\(Self.objectID(type))"),
            "object_id": .string("\(Self.nodeID(device, patient: patient))_\(Self.objectID(type))"),
            "state_topic": .string(stateTopic(device: device, type: type, patient: patient)),
            // A LO/HI reading has no number to show: Home Assistant reads "None" as unknown, and the comparator
            // and interpretation are in the attributes.
            "value_template": .string(
                "{{ value_json.value if value_json.comparator is not defined else None }}"
            ),
            "json_attributes_topic": .string(stateTopic(device: device, type: type, patient: patient)),
            "unit_of_measurement": .string(Self.displayUnit(unit)),
        ]
        if let deviceClass = Self.deviceClass(type) { config["device_class"] = .string(deviceClass) }
        config["state_class"] = .string("measurement")
        // The state carries the exact converted value (120.009852128 mmHg from 16.0 kPa); Home Assistant shows
        // it at the resolution such readings have.
        config["suggested_display_precision"] = .int(Self.displayPrecision(type))
        config["device"] = .object(deviceBlock(device, patient: patient))
        var origin: JSONObject = ["name": .string("CareBridge")]
        if let bridgeVersion { origin["sw_version"] = .string(bridgeVersion) }
        config["origin"] = .object(origin)
        return Message(
            topic: configTopic(device: device, type: type, patient: patient),
            payload: .object(config),
            retain: true
        )
    }

    /// The state message for one sample: retained, so that Home Assistant reads it even when it subscribes to a new
    /// sensor's topic after the message went by (it does so about 0.1 s after it reads the config) or starts later;
    /// carrying the sample id, value, unit and times; for a
    /// LO/HI sample also `comparator` (`<`/`>`) and `interpretation` (`LO`/`HI`), its value being the device's
    /// limit or null; the device's status flags as `status`.
    ///
    /// - Parameters:
    ///   - sample: the sample; its value is sent in its own unit (CareBridge's samples use the canonical one
    ///     that ``config(device:type:)`` declares; others are converted when the units allow).
    ///   - zone: the zone the times are written in (ISO 8601 with offset).
    ///   - patient: the sample's patient when topics are per patient (also carried as `patient` in the message).
    public func state(for sample: QuantitySample, in zone: TimeZone, patient: PatientTag? = nil) -> Message {
        let canonical = sample.type.canonicalUnit
        let converted = sample.unit == canonical ? sample.value : sample.unit.convert(sample.value, to: canonical)
        let (value, unit) = converted.map { ($0, canonical) } ?? (sample.value, sample.unit)
        var state: JSONObject = [
            "id": .string(sample.id.uuidString.lowercased()),
            "type": .string(sample.type.rawValue),
            "value": value.isFinite ? .double(value) : .null,
            "unit": .string(Self.displayUnit(unit)),
            "ucum": .string(unit.rawValue),
            "start": .string(Timestamp.format(sample.start, in: zone)),
        ]
        if let comparator = sample.comparator {
            // The value is the device's limit (null when unknown): never a plain number.
            state["comparator"] = .string(comparator.rawValue)
            state["interpretation"] = .string(comparator.label)
        }
        let flags = SampleScreening.flags(of: sample)
        if !flags.isEmpty { state["status"] = .array(flags.map(JSONValue.string)) }
        if sample.end != sample.start { state["end"] = .string(Timestamp.format(sample.end, in: zone)) }
        state["source"] = .string(sample.source.kind.rawValue)
        if let device = sample.source.device { state["device"] = .string(device.key) }
        state["received_at"] = .string(Timestamp.format(sample.receivedAt, in: zone))
        if let patient { state["patient"] = .string(patient.id) }
        return Message(
            topic: stateTopic(device: sample.source.device, type: sample.type, patient: patient),
            payload: .object(state),
            retain: true
        )
    }

    /// The retraction of a sample that was published and then deleted (a mistyped reading, a wrong device
    /// value): on the sample's state topic, retained (so the retained state is never a deleted reading), `{"id", "type", "status": "entered-in-error",
    /// "retracted": true, "value": null, "deleted_at"}` (FHIR's status for the same correction).
    public func retraction(
        for sample: QuantitySample,
        deletedAt: Date,
        in zone: TimeZone,
        patient: PatientTag? = nil
    ) -> Message {
        Message(
            topic: stateTopic(device: sample.source.device, type: sample.type, patient: patient),
            payload: .object([
                "id": .string(sample.id.uuidString.lowercased()),
                "type": .string(sample.type.rawValue),
                "status": .string("entered-in-error"),
                "retracted": .bool(true),
                "value": .null,
                "start": .string(Timestamp.format(sample.start, in: zone)),
                "deleted_at": .string(Timestamp.format(deletedAt, in: zone)),
            ]),
            retain: true
        )
    }

    /// The device block shared by every entity of one device.
    func deviceBlock(_ device: DeviceIdentity?, patient: PatientTag? = nil) -> JSONObject {
        var block: JSONObject = ["identifiers": .array([.string(Self.nodeID(device, patient: patient))])]
        let whose = patient.map { " (\($0.name))" } ?? ""
        guard let device else {
            block["name"] = .string("CareBridge manual entries" + whose)
            block["manufacturer"] = .string("CareBridge")
            return block
        }
        block["name"] = .string((device.name ?? device.model ?? device.key) + whose)
        if let manufacturer = device.manufacturer { block["manufacturer"] = .string(manufacturer) }
        if let model = device.model { block["model"] = .string(model) }
        if let software = device.software ?? device.firmware { block["sw_version"] = .string(software) }
        if let hardware = device.hardware { block["hw_version"] = .string(hardware) }
        if let serial = device.serial { block["serial_number"] = .string(serial) }
        // Home Assistant merges devices that share a connection: per patient, the address would fold every
        // patient's entities of a shared scale into one device.
        if let address = device.address, patient == nil {
            block["connections"] = .array([.array([.string("bluetooth"), .string(address.lowercased())])])
        }
        return block
    }

    // MARK: - Home Assistant vocabulary

    /// The entity name Home Assistant shows next to the device name, e.g. `Body mass`.
    static func entityName(_ type: QuantityType) -> String {
        let title = type.title
        return title.prefix(1).uppercased() + title.dropFirst()
    }

    /// Decimals Home Assistant shows for `type` in its canonical unit: what the devices resolve (0.1 kg, 0.1 °C,
    /// 1 mmHg, 1 bpm, 1 mg/dL, 1 %, 1 ms, 0.01 m).
    static func displayPrecision(_ type: QuantityType) -> Int {
        switch type {
        case .bodyMass, .leanBodyMass, .bodyWaterMass, .muscleMass, .bodyMassIndex, .bodyFatPercentage,
            .bodyTemperature:
            1
        case .height: 2
        case .heartRate, .rrInterval, .bloodPressureSystolic, .bloodPressureDiastolic, .meanArterialPressure,
            .bloodGlucose, .oxygenSaturation, .basalEnergyBurned, .bodyImpedance:
            0
        }
    }

    /// Home Assistant's `device_class` where it has one whose units fit; nil otherwise.
    static func deviceClass(_ type: QuantityType) -> String? {
        switch type {
        case .bodyMass, .leanBodyMass, .bodyWaterMass, .muscleMass: "weight"
        case .bodyTemperature: "temperature"
        case .height: "distance"
        case .rrInterval: "duration"
        case .bloodPressureSystolic, .bloodPressureDiastolic, .meanArterialPressure: "pressure"
        case .bloodGlucose: "blood_glucose_concentration"
        case .bodyMassIndex, .bodyFatPercentage, .basalEnergyBurned, .bodyImpedance, .heartRate, .oxygenSaturation:
            nil
        }
    }

    /// The unit as Home Assistant writes it (`°C`, `mmHg`, `bpm`); the UCUM code when it has no spelling.
    static func displayUnit(_ unit: HealthUnit) -> String {
        unit.displaySymbol
    }
}
