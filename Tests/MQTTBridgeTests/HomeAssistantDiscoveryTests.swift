import BridgeCore
import BridgeFoundation
import Foundation
import MQTTBridge
import Testing

/// Parses serialized JSON with Foundation, independently of the serializer under test.
func parse(_ value: JSONValue) throws -> [String: Any] {
    let data = Data(value.serialized().utf8)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

let scale = DeviceIdentity(
    address: "C4:7C:8D:6A:12:3F",
    name: "Scale 1",
    manufacturer: "Acme Health",
    model: "BS-440",
    serial: "SN-0042",
    firmware: "1.2.3",
    hardware: "rev B"
)

@Suite struct HomeAssistantDiscoveryTests {
    let discovery = HomeAssistantDiscovery(bridgeVersion: "0.1.0")

    @Test func configForAWeightSampleHasEverythingHomeAssistantNeeds() throws {
        let message = discovery.config(device: scale, type: .bodyMass)
        #expect(message.topic == "homeassistant/sensor/carebridge_c4_7c_8d_6a_12_3f/bodyMass/config")
        #expect(message.retain)
        let config = try parse(message.payload)
        #expect(config["name"] as? String == "Body mass")
        #expect(config["unique_id"] as? String == "carebridge_c4_7c_8d_6a_12_3f_bodyMass")
        #expect(config["state_topic"] as? String == "carebridge/c4_7c_8d_6a_12_3f/bodyMass")
        #expect(config["json_attributes_topic"] as? String == "carebridge/c4_7c_8d_6a_12_3f/bodyMass")
        #expect(
            config["value_template"] as? String
                == "{{ value_json.value if value_json.comparator is not defined else None }}"
        )
        #expect(config["unit_of_measurement"] as? String == "kg")
        #expect(config["device_class"] as? String == "weight")
        #expect(config["state_class"] as? String == "measurement")
        // A reading stays true when the bridge stops: no availability (the bridge's connectivity sensor has it).
        #expect(config["availability_topic"] == nil && config["availability"] == nil)
        let device = try #require(config["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["carebridge_c4_7c_8d_6a_12_3f"])
        #expect(device["manufacturer"] as? String == "Acme Health")
        #expect(device["model"] as? String == "BS-440")
        #expect(device["name"] as? String == "Scale 1")
        #expect(device["sw_version"] as? String == "1.2.3")
        #expect(device["hw_version"] as? String == "rev B")
        #expect(device["serial_number"] as? String == "SN-0042")
        #expect(device["connections"] as? [[String]] == [["bluetooth", "c4:7c:8d:6a:12:3f"]])
        let origin = try #require(config["origin"] as? [String: Any])
        #expect(origin["sw_version"] as? String == "0.1.0")
    }

    @Test(
        "device class, unit and display precision follow Home Assistant's vocabulary",
        arguments: [
            (QuantityType.bodyMass, "weight" as String?, "kg", 1),
            (.bodyTemperature, "temperature", "°C", 1),
            (.height, "distance", "m", 2),
            (.bloodPressureSystolic, "pressure", "mmHg", 0),
            (.bloodGlucose, "blood_glucose_concentration", "mg/dL", 0),
            (.rrInterval, "duration", "ms", 0),
            (.heartRate, nil, "bpm", 0),
            (.oxygenSaturation, nil, "%", 0),
            (.bodyMassIndex, nil, "kg/m²", 1),
            (.bodyImpedance, nil, "Ω", 0),
        ]
    )
    func deviceClassAndUnit(type: QuantityType, deviceClass: String?, unit: String, precision: Int) throws {
        let config = try parse(discovery.config(device: scale, type: type).payload)
        #expect(config["device_class"] as? String == deviceClass)
        #expect(config.keys.contains("device_class") == (deviceClass != nil))
        #expect(config["unit_of_measurement"] as? String == unit)
        #expect(config["state_class"] as? String == "measurement")
        #expect(config["suggested_display_precision"] as? Int == precision)
    }

    @Test func everyTypeGetsADistinctUniqueIDAndTopicsWithoutWildcards() throws {
        var uniqueIDs = Set<String>()
        for type in QuantityType.allCases {
            let message = discovery.config(device: scale, type: type)
            let config = try parse(message.payload)
            uniqueIDs.insert(try #require(config["unique_id"] as? String))
            for topic in [message.topic, discovery.stateTopic(device: scale, type: type)] {
                #expect(!topic.contains("+") && !topic.contains("#") && !topic.contains(" "), "\(topic)")
            }
        }
        #expect(uniqueIDs.count == QuantityType.allCases.count)
    }

    @Test func prefixesAreConfigurableAndManualSamplesGetTheirOwnDevice() throws {
        let custom = HomeAssistantDiscovery(discoveryPrefix: "ha", topicPrefix: "ward3")
        let message = custom.config(device: nil, type: .bodyTemperature)
        #expect(message.topic == "ha/sensor/carebridge_manual/bodyTemperature/config")
        let config = try parse(message.payload)
        #expect(config["state_topic"] as? String == "ward3/manual/bodyTemperature")
        #expect(custom.availabilityTopic(for: .bridge) == "ward3/status")
        #expect(custom.availabilityTopic(for: .alerts) == "ward3/alerts/status")
        let device = try #require(config["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["carebridge_manual"])
        #expect((config["origin"] as? [String: Any])?["sw_version"] == nil)
    }

    @Test func deviceIDsAreReducedToSafeCharacters() {
        #expect(HomeAssistantDiscovery.deviceID(DeviceIdentity(address: "AA:BB:CC:00:11:22")) == "aa_bb_cc_00_11_22")
        #expect(HomeAssistantDiscovery.deviceID(DeviceIdentity(name: "Mi Scale #2 +")) == "mi_scale__2__")
        #expect(HomeAssistantDiscovery.deviceID(DeviceIdentity(serial: "Ünï-7")) == "_n_-7")
        #expect(HomeAssistantDiscovery.deviceID(nil) == "manual")
    }

    @Test func stateTopicFromAStoredDeviceKeyMatchesTheOneFromTheDevice() {
        #expect(discovery.stateTopic(deviceKey: scale.key, type: .bodyMass) == "carebridge/c4_7c_8d_6a_12_3f/bodyMass")
        #expect(
            discovery.stateTopic(deviceKey: scale.key, type: .bodyMass)
                == discovery.stateTopic(device: scale, type: .bodyMass)
        )
        #expect(discovery.stateTopic(deviceKey: nil, type: .bloodGlucose) == "carebridge/manual/bloodGlucose")
    }
}

@Suite struct SampleStateMessageTests {
    let discovery = HomeAssistantDiscovery()
    let utc = TimeZone(identifier: "UTC")!
    let start = Date(timeIntervalSince1970: 1_763_712_000)  // 2025-11-21T08:00:00Z

    func weight(_ kilograms: Double, received: Date? = nil) -> QuantitySample {
        QuantitySample(
            type: .bodyMass,
            value: kilograms,
            unit: .kilogram,
            start: start,
            source: SampleSource(kind: .device, decoder: "weight-measurement", device: scale),
            receivedAt: received,
            rawPayload: [0x02, 0xA4, 0x38]
        )
    }

    @Test func stateCarriesTheSampleIDValueUnitAndTimes() throws {
        let sample = weight(72.45, received: start.addingTimeInterval(3))
        let message = discovery.state(for: sample, in: utc)
        #expect(message.topic == "carebridge/c4_7c_8d_6a_12_3f/bodyMass")
        // Retained: Home Assistant subscribes to a new sensor's topic after reading its config.
        #expect(message.retain)
        let state = try parse(message.payload)
        #expect(state["id"] as? String == sample.id.uuidString.lowercased())
        #expect(state["type"] as? String == "bodyMass")
        #expect(state["value"] as? Double == 72.45)
        #expect(state["unit"] as? String == "kg")
        #expect(state["ucum"] as? String == "kg")
        #expect(state["start"] as? String == Timestamp.format(start, in: utc))
        #expect(state["end"] == nil)
        #expect(state["received_at"] as? String == Timestamp.format(start.addingTimeInterval(3), in: utc))
        #expect(state["source"] as? String == "device")
        #expect(state["device"] as? String == "C4:7C:8D:6A:12:3F")
    }

    @Test func theSameReadingTwiceHasTheSameIDAndDifferentReadingsDoNot() throws {
        let first = try parse(discovery.state(for: weight(72.45), in: utc).payload)
        let again = try parse(discovery.state(for: weight(72.45), in: utc).payload)
        let other = weight(72.45).changed { $0.rawPayload = [0x02, 0xA5, 0x38] }
        let different = try parse(discovery.state(for: other, in: utc).payload)
        #expect(first["id"] as? String == again["id"] as? String)
        #expect(first["id"] as? String != different["id"] as? String)
    }

    @Test func stateTopicMatchesTheConfigsStateTopic() throws {
        for type in [QuantityType.bodyMass, .heartRate, .bloodGlucose] {
            let sample = weight(1).changed {
                $0.type = type
                $0.unit = type.canonicalUnit
            }
            let config = try parse(discovery.config(device: scale, type: type).payload)
            #expect(discovery.state(for: sample, in: utc).topic == config["state_topic"] as? String)
        }
    }

    @Test func valuesInAnotherUnitAreSentInTheUnitTheConfigDeclares() throws {
        let sample = weight(0).changed {
            $0.type = .bodyTemperature
            $0.value = 98.6
            $0.unit = .fahrenheit
        }
        let state = try parse(discovery.state(for: sample, in: utc).payload)
        let celsius = try #require(state["value"] as? Double)
        #expect(abs(celsius - 37.0) < 1e-9)
        #expect(state["unit"] as? String == "°C")
    }

    @Test func manualEntriesHaveNoDeviceAndPublishUnderManual() throws {
        let sample = QuantitySample(type: .bodyTemperature, value: 37.2, unit: .celsius, start: start, source: .manual)
        let message = discovery.state(for: sample, in: utc)
        #expect(message.topic == "carebridge/manual/bodyTemperature")
        let state = try parse(message.payload)
        #expect(state["source"] as? String == "manual")
        #expect(state["device"] == nil)
        #expect(state["value"] as? Double == 37.2)
    }
}
