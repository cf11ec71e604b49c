public import BridgeFoundation

/// One Health Observation Body of the Generic Health Sensor service: an IEEE 11073-10206 (ACOM) observation.
///
/// Layout: Observation Class Type (uint8), Length (uint16: the whole body, these three octets included), Flags
/// (uint16), then the fields the flags announce, in this order: bit 0 Observation Type (uint32 MDC code), bit 1
/// Time Stamp (Elapsed Time, 9 octets), bit 2 Measurement Duration (FLOAT, s), bit 3 Measurement Status
/// (uint16), bit 4 Observation ID (uint32), bit 5 Patient (uint8), bit 6 Supplemental Information (count uint8,
/// then uint32 codes), bit 7 Derived-from (count, uint32 ids), bit 8 Is-member-of (count, uint32 ids), bit 9
/// TLVs (count, then type uint32, length uint16, format uint8, value); bits 10–15 RFU. The value follows,
/// laid out by the class type (``Value``).
/// - SeeAlso: Generic Health Sensor Service 1.0 §3 (Health Observation Body); IEEE 11073-10206. The layout was
///   checked against Realtek's GHSS server (`ghss_gatt_svc.c`, which builds these bodies field by field).
public struct HealthObservation: Sendable, Hashable {
    /// Observation Class Type: an open set (a class a later revision adds is kept, undecoded).
    public struct ClassType: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let numeric = ClassType(rawValue: 0x01)
        public static let simpleDiscrete = ClassType(rawValue: 0x02)
        public static let string = ClassType(rawValue: 0x03)
        public static let sampleArray = ClassType(rawValue: 0x04)
        public static let compoundDiscreteEvent = ClassType(rawValue: 0x05)
        public static let compoundStateEvent = ClassType(rawValue: 0x06)
        public static let compound = ClassType(rawValue: 0x07)
        public static let tlvEncoded = ClassType(rawValue: 0x08)
        public static let bundle = ClassType(rawValue: 0xFF)

        /// `numeric`, `compound`, …; `class 0x42` for a class this build does not know.
        public var name: String {
            let names: [UInt8: String] = [
                0x01: "numeric", 0x02: "simple discrete", 0x03: "string", 0x04: "sample array",
                0x05: "compound discrete event", 0x06: "compound state/event", 0x07: "compound",
                0x08: "TLV-encoded", 0xFF: "bundle",
            ]
            return names[rawValue] ?? "class 0x\(String(rawValue, radix: 16, uppercase: true))"
        }
    }

    /// One TLV attribute: an MDC attribute id, a format byte and its raw value.
    public struct TLV: Sendable, Hashable {
        public var type: UInt32
        public var format: UInt8
        public var value: [UInt8]
    }

    public var classType: ClassType
    public var flags: UInt16
    /// The MDC code of what was observed (e.g. 150456 MDC_PULS_OXIM_SAT_O2); absent only in bundles whose
    /// members carry their own.
    public var type: UInt32?
    public var timeStamp: ElapsedTime?
    /// Measurement Duration in seconds.
    public var measurementDuration: MedFloat?
    public var measurementStatus: HealthObservationStatus?
    public var observationID: UInt32?
    public var patient: UInt8?
    public var supplementalInformation: [UInt32] = []
    public var derivedFrom: [UInt32] = []
    public var memberOf: [UInt32] = []
    public var tlvs: [TLV] = []
    public var value: Value

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        classType = ClassType(rawValue: try reader.read(UInt8.self, field: "Observation Class Type"))
        let length = Int(try reader.read(UInt16.self, field: "Length"))
        guard length >= 5 else {
            throw reader.error(.invalidValue(field: "Length", raw: UInt64(length), expected: "at least 5"))
        }
        // The body ends where its Length says: its fields and value are read from these bytes only (errors keep
        // the payload's context and offsets).
        try reader.require(length - 3, for: "Health Observation Body (Length \(length))")
        var inner = ByteReader(Array(reader.bytes[..<(reader.offset + length - 3)]), context: reader.context)
        _ = try inner.readBytes(reader.offset, field: "header")
        _ = try reader.readBytes(length - 3, field: "Health Observation Body")
        flags = try inner.read(UInt16.self, field: "Flags")
        if flags & 0x0001 != 0 { type = try inner.read(UInt32.self, field: "Observation Type") }
        if flags & 0x0002 != 0 { timeStamp = try inner.readElapsedTime() }
        if flags & 0x0004 != 0 { measurementDuration = try inner.readMedFloat(field: "Measurement Duration") }
        if flags & 0x0008 != 0 {
            measurementStatus = HealthObservationStatus(
                rawValue: try inner.read(UInt16.self, field: "Measurement Status")
            )
        }
        if flags & 0x0010 != 0 { observationID = try inner.read(UInt32.self, field: "Observation ID") }
        if flags & 0x0020 != 0 { patient = try inner.read(UInt8.self, field: "Patient") }
        if flags & 0x0040 != 0 { supplementalInformation = try Self.codes(&inner, field: "Supplemental Information") }
        if flags & 0x0080 != 0 { derivedFrom = try Self.codes(&inner, field: "Derived-from") }
        if flags & 0x0100 != 0 { memberOf = try Self.codes(&inner, field: "Is-member-of") }
        if flags & 0x0200 != 0 { tlvs = try Self.readTLVs(&inner) }
        value = try Value(classType, from: &inner)
        if inner.remaining != 0 {
            throw inner.error(
                .unexpectedLength(expected: "\(inner.offset) octets (Length \(length))", actual: length)
            )
        }
    }

    static func codes(_ reader: inout ByteReader, field: String) throws(GATTDecodingError) -> [UInt32] {
        let count = Int(try reader.read(UInt8.self, field: "\(field) count"))
        var codes: [UInt32] = []
        for _ in 0..<count { codes.append(try reader.read(UInt32.self, field: field)) }
        return codes
    }

    static func readTLVs(_ reader: inout ByteReader) throws(GATTDecodingError) -> [TLV] {
        let count = Int(try reader.read(UInt8.self, field: "TLV count"))
        var tlvs: [TLV] = []
        for _ in 0..<count {
            let type = try reader.read(UInt32.self, field: "TLV type")
            let length = Int(try reader.read(UInt16.self, field: "TLV length"))
            let format = try reader.read(UInt8.self, field: "TLV format")
            tlvs.append(TLV(type: type, format: format, value: try reader.readBytes(length, field: "TLV value")))
        }
        return tlvs
    }

    /// Flag bits reserved for future use that were set (ignored).
    public var reservedFlags: UInt16 { flags & 0xFC00 }

    public var fields: JSONObject {
        var fields: JSONObject = ["class": .string(classType.name), "flags": .int(Int(flags))]
        if let type { fields["type"] = .int(Int(type)) }
        if let timeStamp { fields["timeStamp"] = .object(timeStamp.fields) }
        if let measurementDuration { fields["measurementDuration"] = measurementDuration.field }
        if let measurementStatus {
            fields["measurementStatus"] = .int(Int(measurementStatus.rawValue))
            fields["measurementStatusBits"] = measurementStatus.field
        }
        if let observationID { fields["observationID"] = .int(Int(observationID)) }
        if let patient { fields["patient"] = .int(Int(patient)) }
        if !supplementalInformation.isEmpty {
            fields["supplementalInformation"] = .array(supplementalInformation.map { .int(Int($0)) })
        }
        if !derivedFrom.isEmpty { fields["derivedFrom"] = .array(derivedFrom.map { .int(Int($0)) }) }
        if !memberOf.isEmpty { fields["memberOf"] = .array(memberOf.map { .int(Int($0)) }) }
        if !tlvs.isEmpty {
            fields["tlvs"] = .array(
                tlvs.map {
                    .object([
                        "type": .int(Int($0.type)), "format": .int(Int($0.format)),
                        "value": .string(Hex.string($0.value)),
                    ])
                }
            )
        }
        for member in value.fields.members { fields[member.key] = member.value }
        if reservedFlags != 0 { fields["reservedFlags"] = .int(Int(reservedFlags)) }
        return fields
    }
}
