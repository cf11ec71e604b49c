import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding

/// The resources and pieces the PHD IG 2.0 adds to a device reading (see ``PHDCoding`` for the sources).
extension FHIRBundleWriter {
    /// Identifier system of coincident time stamps (value: `<device key>|<offset s>|<UTC day of reception>`). The
    /// guide gives them no identifier ("never duplicates, always created"); a push that may send a bundle twice
    /// needs one to create each once.
    public static let coincidentTimeStampIdentifierSystem = "urn:carebridge:coincident-time"

    /// The gateway as a PhgDevice: System Id identifier (EUI-64), type MDC_MOC_VMS_MDS_AHD, one specialization per
    /// device type CareBridge reads, its software version, manufacturer and model.
    static func gatewayResource(_ gateway: FHIRGateway) -> String {
        var out = "{\"resourceType\":\"Device\",\"meta\":{\"profile\":[\"\(PHDCoding.gatewayProfile)\"]}"
        out += ",\"identifier\":[" + systemIDIdentifier(gateway.systemID) + "]"
        out += ",\"manufacturer\":"
        JSONValue.writeString(gateway.manufacturer, into: &out)
        out += ",\"deviceName\":[{\"name\":"
        JSONValue.writeString(gateway.model, into: &out)
        out += ",\"type\":\"model-name\"}],\"modelNumber\":"
        JSONValue.writeString(gateway.model, into: &out)
        out += ",\"type\":"
        appendCodeableConcept([PHDCoding.gatewayDeviceType], text: "Personal health gateway", to: &out)
        out += ",\"specialization\":["
        let supported: [QuantityType] = [
            .bloodPressureSystolic, .bodyMass, .bodyFatPercentage, .bodyTemperature, .oxygenSaturation,
            .bloodGlucose, .heartRate,
        ]
        for (index, type) in supported.enumerated() {
            if index > 0 { out += "," }
            out += "{\"systemType\":"
            appendCodeableConcept([PHDCoding.specialization(of: type)], text: nil, to: &out)
            out += "}"
        }
        out += "],\"version\":[{\"type\":"
        appendCodeableConcept([PHDCoding.softwareVersion], text: "Software revision", to: &out)
        out += ",\"value\":"
        JSONValue.writeString(gateway.softwareVersion, into: &out)
        return out + "}]}"
    }

    static func systemIDIdentifier(_ eui64: String) -> String {
        "{\"type\":{\"coding\":[{\"system\":\"\(PHDCoding.deviceIdentifierTypeSystem)\",\"code\":\"SYSID\"}]}"
            + ",\"system\":\"\(PHDCoding.systemIDSystem)\",\"value\":\"" + eui64 + "\"}"
    }

    /// A reading device as a PhdDevice: CareBridge's own identifier (what the bundle matches it by), the guide's
    /// System Id (1..1: the EUI-64 of the device's Device Information System ID, else all zeros as the profile says
    /// for a device that gives none) and, when the address is a Bluetooth EUI-48, the guide's BTMAC identifier; manufacturer and model (`unknown` when the
    /// device never said: both are 1..1 in the profile); serial; names; type MDC_MOC_VMS_MDS_SIMP; the
    /// specialization of the first reading's type; firmware, hardware and software versions in MDC version types
    /// (the profile wants at least one: `unknown` software when the device gave none).
    static func deviceResource(_ identity: DeviceIdentity, firstType: QuantityType) -> String {
        var out = "{\"resourceType\":\"Device\",\"meta\":{\"profile\":[\"\(PHDCoding.deviceProfile)\"]}"
        out += ",\"identifier\":[{\"system\":\"\(deviceIdentifierSystem)\",\"value\":"
        JSONValue.writeString(identity.key, into: &out)
        out += "}," + systemIDIdentifier(identity.systemID.flatMap(PHDCoding.eui64) ?? PHDCoding.unknownSystemID)
        if let address = identity.address, let eui48 = PHDCoding.eui48(address) {
            out += ",{\"type\":{\"coding\":[{\"system\":\"\(PHDCoding.deviceIdentifierTypeSystem)\","
            out += "\"code\":\"BTMAC\"}]},\"system\":\"\(PHDCoding.bluetoothAddressSystem)\",\"value\":\""
            out += eui48 + "\"}"
        }
        out += "],\"manufacturer\":"
        JSONValue.writeString(identity.manufacturer ?? "unknown", into: &out)
        if let serial = identity.serial {
            out += ",\"serialNumber\":"
            JSONValue.writeString(serial, into: &out)
        }
        let names = [(identity.name, "user-friendly-name"), (identity.model, "model-name")].compactMap { name, type in
            name.map { ($0, type) }
        }
        if !names.isEmpty {
            out += ",\"deviceName\":["
            for (index, (name, type)) in names.enumerated() {
                if index > 0 { out += "," }
                out += "{\"name\":"
                JSONValue.writeString(name, into: &out)
                out += ",\"type\":\"\(type)\"}"
            }
            out += "]"
        }
        out += ",\"modelNumber\":"
        JSONValue.writeString(identity.model ?? "unknown", into: &out)
        out += ",\"type\":"
        appendCodeableConcept([PHDCoding.phdDeviceType], text: nil, to: &out)
        out += ",\"specialization\":[{\"systemType\":"
        appendCodeableConcept([PHDCoding.specialization(of: firstType)], text: nil, to: &out)
        // Bluetooth SIG devices report no 11073 specialization version; the guide's transcoding writes them as
        // if they followed the specialization's first version.
        out += ",\"version\":\"1\"}]"
        var versions = [
            (PHDCoding.firmwareVersion, "Firmware revision", identity.firmware),
            (PHDCoding.hardwareVersion, "Hardware revision", identity.hardware),
            (PHDCoding.softwareVersion, "Software revision", identity.software),
        ]
        .compactMap { coding, text, value in value.map { (coding, text, $0) } }
        if versions.isEmpty { versions = [(PHDCoding.softwareVersion, "Software revision", "unknown")] }
        out += ",\"version\":["
        for (index, (coding, text, value)) in versions.enumerated() {
            if index > 0 { out += "," }
            out += "{\"type\":"
            appendCodeableConcept([coding], text: text, to: &out)
            out += ",\"value\":"
            JSONValue.writeString(value, into: &out)
            out += "}"
        }
        return out + "]}"
    }

    /// The guide's conditional-create identifier value, `device-patient-type-timestamp[..duration]`, or nil when
    /// the device gave no time stamp (the guide recommends none then: CareBridge's own identifier is used).
    ///
    /// - device: the EUI-48 of a Bluetooth address in capitals without separators, else the device key;
    /// - patient: `<Patient.identifier.value>-<system>` of the bundle's patient, or the logical id of `--subject`;
    /// - type: the MDC code; timestamp: the device's own time stamp as seconds since 2000-01-01 (Bluetooth time
    ///   stamps have whole seconds and no offset); duration: `..<seconds>` when the reading spans a period.
    /// - SeeAlso: PHD IG 2.0 PhdBaseObservation notes, "Conditional-create Identifier", and "Generating the PHD
    ///   Reported Timestamp".
    func phdIdentifier(_ sample: QuantitySample, identity: DeviceIdentity, mdcCode: String) -> String? {
        guard let deviceTime = sample.deviceTime, let utc = deviceTime.date(in: Self.utc) else { return nil }
        let device = identity.address.flatMap(PHDCoding.eui48)?.replacingOccurrences(of: "-", with: "") ?? identity.key
        let patient: String
        if let subject = options.subject {
            patient = String(subject.split(separator: "/").last ?? Substring(subject))
        } else if let id = options.patient?.id {
            patient = id + "-" + Self.patientIdentifierSystem
        } else {
            patient = ""
        }
        var value = device + "-" + patient + "-" + mdcCode + "-"
        value += String(Int64((utc.timeIntervalSince1970 - 946_684_800).rounded(.down)))
        let duration = sample.end.timeIntervalSince(sample.start)
        if duration > 0 { value += ".." + (JSONText.number(duration) ?? "0") }
        return value
    }

    static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0)!

    /// The key and time pair of the coincident time stamp for a device reading with a device time stamp: one per
    /// device, clock offset (whole seconds) and UTC day of reception; the gateway's time is the reception, the
    /// device's the reception less the offset the pipeline added to the device's clock.
    static func coincidentKey(
        _ sample: QuantitySample,
        deviceKey: String
    ) -> (key: String, gateway: Date, device: Date)? {
        guard sample.deviceTime != nil else { return nil }
        let offset = (sample.clockOffset ?? 0).rounded()
        let day = Int64((sample.receivedAt.timeIntervalSince1970 / 86_400).rounded(.down))
        let key = deviceKey + "|" + String(Int64(offset)) + "|" + String(day)
        return (key, sample.receivedAt, sample.receivedAt.addingTimeInterval(-offset))
    }

    /// A PhdCoincidentTimeStampObservation: code MDC_ATTR_TIME_ABS, subject the PhdDevice, device the gateway,
    /// `effectiveDateTime` the gateway's clock, `valueDateTime` the device's at that moment.
    func coincidentResource(key: String, gateway: Date, device: Date, phd: String, phg: String) -> String {
        var out =
            "{\"resourceType\":\"Observation\",\"meta\":{\"profile\":[\"\(PHDCoding.coincidentTimeStampProfile)\"]}"
        out += ",\"identifier\":[{\"system\":\"\(Self.coincidentTimeStampIdentifierSystem)\",\"value\":"
        JSONValue.writeString(key, into: &out)
        out += "}],\"status\":\"final\",\"code\":"
        Self.appendCodeableConcept([PHDCoding.absoluteTime], text: "Absolute time", to: &out)
        out += ",\"subject\":{\"reference\":\"" + phd + "\"},\"effectiveDateTime\":\"" + formatter.format(gateway)
        out += "\",\"valueDateTime\":\"" + formatter.format(device) + "\",\"device\":{\"reference\":\"" + phg + "\"}}"
        return out
    }
}
