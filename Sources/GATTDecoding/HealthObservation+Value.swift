import BridgeFoundation

extension HealthObservation {
    /// The value of a health observation, laid out by its Observation Class Type.
    ///
    /// - numeric: Unit (uint16 MDC unit code), Value (FLOAT);
    /// - simple discrete: Value (uint32 MDC code);
    /// - string: Length (uint16), UTF-8 text;
    /// - sample array: Unit (uint16), Scale Factor, Offset, Sample Period (FLOAT each), Samples per Period
    ///   (uint8), Bytes per Sample (uint8), Number of Samples (uint32), the samples;
    /// - compound discrete event: count (uint8), uint32 MDC codes;
    /// - compound state/event: Size (uint8), then the supported-mask, state/event-mask and value bit fields of
    ///   Size octets each;
    /// - compound: count (uint8), then per component its Type (uint32 MDC code), Value Type (uint8, a class
    ///   type 1–6) and value in that class's layout;
    /// - TLV-encoded: count (uint8), TLVs;
    /// - bundle: count (uint8), then whole health observation bodies.
    /// A class this build does not know is kept as its bytes (``unknown(_:)``).
    /// - SeeAlso: Generic Health Sensor Service 1.0 §3; IEEE 11073-10206.
    public indirect enum Value: Sendable, Hashable {
        case numeric(unit: UInt16, value: MedFloat)
        case simpleDiscrete(UInt32)
        case string(String)
        case sampleArray(SampleArray)
        case compoundDiscreteEvent([UInt32])
        case compoundStateEvent(supported: [UInt8], stateEvent: [UInt8], value: [UInt8])
        case compound([Component])
        case tlvEncoded([TLV])
        case bundle([HealthObservation])
        case unknown([UInt8])

        /// One component of a compound observation (systolic of a blood pressure, for example).
        public struct Component: Sendable, Hashable {
            /// MDC code of the component (150021 MDC_PRESS_BLD_NONINV_SYS, …).
            public var type: UInt32
            public var value: Value
        }

        /// A sample array observation's header and raw samples.
        public struct SampleArray: Sendable, Hashable {
            public var unit: UInt16
            public var scaleFactor: MedFloat
            public var offset: MedFloat
            /// Seconds.
            public var samplePeriod: MedFloat
            public var samplesPerPeriod: UInt8
            public var bytesPerSample: UInt8
            public var numberOfSamples: UInt32
            public var samples: [UInt8]
        }

        /// Reads the value of an observation of class `classType`.
        init(_ classType: ClassType, from reader: inout ByteReader) throws(GATTDecodingError) {
            switch classType {
            case .numeric:
                self = .numeric(
                    unit: try reader.read(UInt16.self, field: "Unit"),
                    value: try reader.readMedFloat(field: "Value")
                )
            case .simpleDiscrete: self = .simpleDiscrete(try reader.read(UInt32.self, field: "Value"))
            case .string:
                let length = Int(try reader.read(UInt16.self, field: "String Length"))
                self = .string(String(decoding: try reader.readBytes(length, field: "String"), as: UTF8.self))
            case .sampleArray:
                let unit = try reader.read(UInt16.self, field: "Unit")
                let scale = try reader.readMedFloat(field: "Scale Factor")
                let offset = try reader.readMedFloat(field: "Offset")
                let period = try reader.readMedFloat(field: "Sample Period")
                let perPeriod = try reader.read(UInt8.self, field: "Samples per Period")
                let width = try reader.read(UInt8.self, field: "Bytes per Sample")
                let count = try reader.read(UInt32.self, field: "Number of Samples")
                let size = Int(width) * Int(count)
                try reader.require(size, for: "Samples")
                self = .sampleArray(
                    SampleArray(
                        unit: unit,
                        scaleFactor: scale,
                        offset: offset,
                        samplePeriod: period,
                        samplesPerPeriod: perPeriod,
                        bytesPerSample: width,
                        numberOfSamples: count,
                        samples: try reader.readBytes(size, field: "Samples")
                    )
                )
            case .compoundDiscreteEvent:
                self = .compoundDiscreteEvent(try HealthObservation.codes(&reader, field: "Value"))
            case .compoundStateEvent:
                let size = Int(try reader.read(UInt8.self, field: "Size"))
                self = .compoundStateEvent(
                    supported: try reader.readBytes(size, field: "Supported Mask"),
                    stateEvent: try reader.readBytes(size, field: "State/Event Mask"),
                    value: try reader.readBytes(size, field: "Value")
                )
            case .compound:
                let count = Int(try reader.read(UInt8.self, field: "Number of Components"))
                var components: [Component] = []
                for _ in 0..<count {
                    let type = try reader.read(UInt32.self, field: "Component Type")
                    let raw = try reader.read(UInt8.self, field: "Component Value Type")
                    guard (0x01...0x06).contains(raw) else {
                        throw reader.error(
                            .invalidValue(field: "Component Value Type", raw: UInt64(raw), expected: "a class type 1–6")
                        )
                    }
                    components.append(Component(type: type, value: try Value(ClassType(rawValue: raw), from: &reader)))
                }
                self = .compound(components)
            case .tlvEncoded: self = .tlvEncoded(try HealthObservation.readTLVs(&reader))
            case .bundle:
                let count = Int(try reader.read(UInt8.self, field: "Number of Observations"))
                var members: [HealthObservation] = []
                for _ in 0..<count { members.append(try HealthObservation(from: &reader)) }
                self = .bundle(members)
            default: self = .unknown(reader.readRemaining())
            }
        }

        /// The value's fields, merged into its observation's.
        var fields: JSONObject {
            switch self {
            case .numeric(let unit, let value): ["unit": .int(Int(unit)), "value": value.field]
            case .simpleDiscrete(let code): ["value": .int(Int(code))]
            case .string(let text): ["value": .string(text)]
            case .sampleArray(let array):
                [
                    "unit": .int(Int(array.unit)), "scaleFactor": array.scaleFactor.field,
                    "offset": array.offset.field, "samplePeriod": array.samplePeriod.field,
                    "samplesPerPeriod": .int(Int(array.samplesPerPeriod)),
                    "bytesPerSample": .int(Int(array.bytesPerSample)),
                    "numberOfSamples": .int(Int(array.numberOfSamples)), "samples": .string(Hex.string(array.samples)),
                ]
            case .compoundDiscreteEvent(let codes): ["value": .array(codes.map { .int(Int($0)) })]
            case .compoundStateEvent(let supported, let stateEvent, let value):
                [
                    "supportedMask": .string(Hex.string(supported)),
                    "stateEventMask": .string(Hex.string(stateEvent)), "value": .string(Hex.string(value)),
                ]
            case .compound(let components):
                [
                    "components": .array(
                        components.map { component in
                            var fields: JSONObject = ["type": .int(Int(component.type))]
                            for member in component.value.fields.members { fields[member.key] = member.value }
                            return .object(fields)
                        }
                    )
                ]
            case .tlvEncoded(let tlvs): ["value": .int(tlvs.count)]
            case .bundle(let members): ["observations": .array(members.map { .object($0.fields) })]
            case .unknown(let bytes): ["value": .string(Hex.string(bytes))]
            }
        }
    }
}
