public import BridgeFoundation

/// Glucose Measurement (0x2A18), notified by a glucose meter for each stored record a RACP request reports.
///
/// Flags: bit 0 Time Offset, bit 1 Concentration and Type-Sample Location, bit 2 concentration unit
/// (0 kg/L, 1 mol/L), bit 3 Sensor Status Annunciation, bit 4 Context Information Follows; bits 5–7 RFU
/// (ignored). The user-facing time is Base Time + Time Offset (sint16 minutes). Type is the low nibble of
/// Type-Sample Location, sample location the high nibble.
/// - SeeAlso: Glucose Service 1.0, GATT Specification Supplement §3.Glucose Measurement;
///   `gatt-reference.md` §9.1.
public struct GlucoseMeasurement: GATTPayload, Hashable {
    public static let identifier = "glucose-measurement"
    public static let name = "Glucose Measurement"
    public static let source = PayloadSource.characteristic(.glucoseMeasurement)

    public var flags: UInt8
    /// Increases with every record; wraps at 0xFFFF. A Glucose Measurement Context with the same number may follow.
    public var sequenceNumber: UInt16
    public var baseTime: DateTime
    /// Minutes to add to ``baseTime`` for the user-facing time.
    public var timeOffset: Int16?
    /// In kg/L or mol/L (see ``isMolePerLitre``).
    public var concentration: SFloat?
    /// Type (low nibble) and sample location (high nibble), as sent.
    public var typeSampleLocation: UInt8?
    public var sensorStatus: UInt16?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        sequenceNumber = try reader.read(UInt16.self, field: "Sequence Number")
        baseTime = try reader.readDateTime()
        timeOffset = flags & 0x01 != 0 ? try reader.read(Int16.self, field: "Time Offset") : nil
        if flags & 0x02 != 0 {
            concentration = try reader.readSFloat(field: "Glucose Concentration")
            typeSampleLocation = try reader.read(UInt8.self, field: "Type-Sample Location")
        }
        sensorStatus = flags & 0x08 != 0 ? try reader.read(UInt16.self, field: "Sensor Status Annunciation") : nil
    }

    /// Concentration unit bit: mol/L when set, kg/L when clear.
    public var isMolePerLitre: Bool { flags & 0x04 != 0 }
    public var concentrationUnit: String { isMolePerLitre ? "mol/L" : "kg/L" }
    /// A Glucose Measurement Context with the same sequence number follows.
    public var contextFollows: Bool { flags & 0x10 != 0 }
    /// Flag bits reserved for future use that were set (they are ignored).
    public var reservedFlags: UInt8 { flags & 0xE0 }

    /// Base Time + Time Offset: the time the user sees on the meter.
    public var userFacingTime: DateTime { baseTime.adding(minutes: Int(timeOffset ?? 0)) }

    /// Sample type code (low nibble): 1 capillary whole blood … 10 control solution.
    public var sampleType: Int? { typeSampleLocation.map { Int($0 & 0x0F) } }
    /// Sample location code (high nibble): 1 finger, 2 alternate site, 3 earlobe, 4 control solution, 15 n/a.
    public var sampleLocation: Int? { typeSampleLocation.map { Int($0 >> 4) } }
    public var sampleTypeName: String? { sampleType.map { BitNames.code($0, Self.typeNames) } }
    public var sampleLocationName: String? { sampleLocation.map { BitNames.code($0, Self.locationNames) } }
    /// Type 10 or location 4: a control-solution test, not patient data.
    public var isControlSolution: Bool { sampleType == 10 || sampleLocation == 4 }
    /// Names of the Sensor Status Annunciation bits that are set.
    public var sensorStatusNames: [String] {
        sensorStatus.map { BitNames.names(of: UInt32($0), Self.statusNames) } ?? []
    }

    public static let typeNames: [Int: String] = [
        1: "capillary whole blood", 2: "capillary plasma", 3: "venous whole blood", 4: "venous plasma",
        5: "arterial whole blood", 6: "arterial plasma", 7: "undetermined whole blood", 8: "undetermined plasma",
        9: "interstitial fluid", 10: "control solution",
    ]
    public static let locationNames: [Int: String] = [
        1: "finger", 2: "alternate site test", 3: "earlobe", 4: "control solution", 15: "not available",
    ]
    public static let statusNames: [String?] = [
        "device battery low", "sensor malfunction", "sample size insufficient", "strip insertion error",
        "strip type incorrect", "result higher than the device can process",
        "result lower than the device can process", "sensor temperature too high", "sensor temperature too low",
        "sensor read interrupted", "general device fault", "time fault",
    ]

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "sequenceNumber": .int(Int(sequenceNumber)),
            "baseTime": baseTime.field,
        ]
        if let timeOffset {
            fields["timeOffset"] = .int(Int(timeOffset))
            fields["timeOffsetUnit"] = .string("min")
        }
        fields["userFacingTime"] = userFacingTime.field
        if let concentration {
            fields["concentration"] = concentration.field
            fields["concentrationUnit"] = .string(concentrationUnit)
        }
        if let sampleType, let sampleTypeName, let sampleLocation, let sampleLocationName {
            fields["type"] = .int(sampleType)
            fields["typeName"] = .string(sampleTypeName)
            fields["sampleLocation"] = .int(sampleLocation)
            fields["sampleLocationName"] = .string(sampleLocationName)
        }
        if let sensorStatus {
            fields["sensorStatus"] = .int(Int(sensorStatus))
            fields["sensorStatusBits"] = BitNames.field(UInt32(sensorStatus), Self.statusNames)
        }
        fields["contextFollows"] = .bool(contextFollows)
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
