public import BridgeFoundation

/// Record Access Control Point (0x2A52): requests a collector writes to read stored records (glucose meters,
/// spot-check oximeters) and the responses the device indicates.
///
/// Format: Op Code uint8 | Operator uint8 | Operand. Decoding accepts both directions: requests (op codes 1–4,
/// with a filter-type operand for operators 2–4) and responses (5 Number of Stored Records, 6 Response Code).
/// Unknown op codes, operators and filter types decode with their operand kept as raw bytes.
/// The record count in a Number of Stored Records response is read leniently as 1, 2 or 4 octets.
/// ``Request`` encodes the requests a collector sends.
/// - SeeAlso: Glucose Service 1.0 §RACP, GATT Specification Supplement §3.Record Access Control Point;
///   `gatt-reference.md` §9.3.
public struct RecordAccessControlPoint: GATTPayload, Hashable {
    public static let identifier = "record-access-control-point"
    public static let name = "Record Access Control Point"
    public static let source = PayloadSource.characteristic(.recordAccessControlPoint)

    /// RACP op codes (an open set).
    public struct OpCode: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let reportStoredRecords = OpCode(rawValue: 1)
        public static let deleteStoredRecords = OpCode(rawValue: 2)
        public static let abortOperation = OpCode(rawValue: 3)
        public static let reportNumberOfStoredRecords = OpCode(rawValue: 4)
        public static let numberOfStoredRecordsResponse = OpCode(rawValue: 5)
        public static let responseCode = OpCode(rawValue: 6)

        public var name: String {
            BitNames.code(
                Int(rawValue),
                [
                    1: "report stored records", 2: "delete stored records", 3: "abort operation",
                    4: "report number of stored records", 5: "number of stored records response", 6: "response code",
                ]
            )
        }
    }

    /// RACP operators (an open set).
    public struct Operator: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let null = Operator(rawValue: 0)
        public static let allRecords = Operator(rawValue: 1)
        public static let lessThanOrEqualTo = Operator(rawValue: 2)
        public static let greaterThanOrEqualTo = Operator(rawValue: 3)
        public static let withinRangeOf = Operator(rawValue: 4)
        public static let firstRecord = Operator(rawValue: 5)
        public static let lastRecord = Operator(rawValue: 6)

        public var name: String {
            BitNames.code(
                Int(rawValue),
                [
                    0: "null", 1: "all records", 2: "less than or equal to", 3: "greater than or equal to",
                    4: "within range of (inclusive)", 5: "first record", 6: "last record",
                ]
            )
        }

        /// Operators 2–4 carry a filter type and one or two filter values.
        var filterValueCount: Int? {
            switch rawValue {
            case 2, 3: 1
            case 4: 2
            default: nil
            }
        }
    }

    /// RACP response values (an open set).
    public struct ResponseValue: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = ResponseValue(rawValue: 1)
        public static let opCodeNotSupported = ResponseValue(rawValue: 2)
        public static let invalidOperator = ResponseValue(rawValue: 3)
        public static let operatorNotSupported = ResponseValue(rawValue: 4)
        public static let invalidOperand = ResponseValue(rawValue: 5)
        public static let noRecordsFound = ResponseValue(rawValue: 6)
        public static let abortUnsuccessful = ResponseValue(rawValue: 7)
        public static let procedureNotCompleted = ResponseValue(rawValue: 8)
        public static let operandNotSupported = ResponseValue(rawValue: 9)

        public var name: String {
            BitNames.code(
                Int(rawValue),
                [
                    1: "success", 2: "op code not supported", 3: "invalid operator", 4: "operator not supported",
                    5: "invalid operand", 6: "no records found", 7: "abort unsuccessful", 8: "procedure not completed",
                    9: "operand not supported",
                ]
            )
        }
    }

    /// A filter value of operators 2–4.
    public enum FilterValue: Sendable, Hashable {
        /// Filter type 0x01.
        case sequenceNumber(UInt16)
        /// Filter type 0x02.
        case userFacingTime(DateTime)

        var field: JSONValue {
            switch self {
            case .sequenceNumber(let number): .int(Int(number))
            case .userFacingTime(let time): time.field
            }
        }
    }

    public var opCode: OpCode
    public var `operator`: Operator
    /// Everything after the operator, as sent.
    public var operand: [UInt8]
    /// Operand bytes no field above accounts for (unknown op code or filter type, trailing bytes).
    public var unparsedOperand: [UInt8]
    /// Number of Stored Records response: the count.
    public var numberOfRecords: UInt32?
    /// Number of Stored Records response: how many octets the count used (1, 2 or 4).
    public var numberOfRecordsWidth: Int?
    /// Response Code: the op code of the request being answered.
    public var requestOpCode: OpCode?
    /// Response Code: the outcome.
    public var responseValue: ResponseValue?
    /// Requests with operators 2–4: the filter type (1 sequence number, 2 user-facing time).
    public var filterType: UInt8?
    /// Requests with operators 2–4 and a known filter type: the one or two filter values.
    public var filterValues: [FilterValue]

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        let opCode = OpCode(rawValue: try reader.read(UInt8.self, field: "Op Code"))
        self.opCode = opCode
        self.operator = Operator(rawValue: try reader.read(UInt8.self, field: "Operator"))
        let operandStart = reader.offset
        filterValues = []
        switch opCode {
        case .numberOfStoredRecordsResponse:
            switch reader.remaining {
            case 1: numberOfRecords = UInt32(try reader.read(UInt8.self, field: "Number of Records"))
            case 2: numberOfRecords = UInt32(try reader.read(UInt16.self, field: "Number of Records"))
            case 4: numberOfRecords = try reader.read(UInt32.self, field: "Number of Records")
            case 0: try reader.require(2, for: "Number of Records")
            default:
                throw reader.error(
                    .unexpectedLength(
                        expected: "3, 4 or 6 octets (a 1-, 2- or 4-octet record count)",
                        actual: reader.bytes.count
                    )
                )
            }
            numberOfRecordsWidth = reader.offset - operandStart
        case .responseCode:
            requestOpCode = OpCode(rawValue: try reader.read(UInt8.self, field: "Request Op Code"))
            responseValue = ResponseValue(rawValue: try reader.read(UInt8.self, field: "Response Code Value"))
        case .reportStoredRecords, .deleteStoredRecords, .reportNumberOfStoredRecords:
            if let count = self.operator.filterValueCount {
                let type = try reader.read(UInt8.self, field: "Filter Type")
                filterType = type
                for _ in 0..<count {
                    switch type {
                    case 0x01:
                        filterValues.append(.sequenceNumber(try reader.read(UInt16.self, field: "Sequence Number")))
                    case 0x02: filterValues.append(.userFacingTime(try reader.readDateTime()))
                    default: break
                    }
                }
            }
        default:
            break
        }
        operand = Array(reader.bytes[operandStart...])
        unparsedOperand = reader.readRemaining()
    }

    /// The request these bytes encode, when they are one of the requests ``Request`` can build.
    public var request: Request? {
        var fromSequenceNumber: UInt16?
        if filterValues.count == 1, case .sequenceNumber(let number) = filterValues[0] { fromSequenceNumber = number }
        switch (opCode, self.operator) {
        case (.reportStoredRecords, .allRecords): return .reportAllRecords
        case (.reportStoredRecords, .greaterThanOrEqualTo):
            return fromSequenceNumber.map { .reportRecords(fromSequenceNumber: $0) }
        case (.reportNumberOfStoredRecords, .allRecords): return .reportNumberOfAllRecords
        case (.reportNumberOfStoredRecords, .greaterThanOrEqualTo):
            return fromSequenceNumber.map { .reportNumberOfRecords(fromSequenceNumber: $0) }
        case (.abortOperation, .null): return .abort
        default: return nil
        }
    }

    /// A Response Code that ends a Report Stored Records procedure: success or no records found.
    public var endsProcedureSuccessfully: Bool {
        opCode == .responseCode && (responseValue == .success || responseValue == .noRecordsFound)
    }

    public var fields: JSONObject {
        var fields: JSONObject = [
            "opCode": .int(Int(opCode.rawValue)),
            "opCodeName": .string(opCode.name),
            "operator": .int(Int(self.operator.rawValue)),
            "operatorName": .string(self.operator.name),
        ]
        if let numberOfRecords, let numberOfRecordsWidth {
            fields["numberOfRecords"] = .int(Int(numberOfRecords))
            fields["numberOfRecordsOctets"] = .int(numberOfRecordsWidth)
        }
        if let requestOpCode, let responseValue {
            fields["requestOpCode"] = .int(Int(requestOpCode.rawValue))
            fields["requestOpCodeName"] = .string(requestOpCode.name)
            fields["responseValue"] = .int(Int(responseValue.rawValue))
            fields["responseValueName"] = .string(responseValue.name)
        }
        if let filterType {
            fields["filterType"] = .int(Int(filterType))
            fields["filterTypeName"] = .string(
                BitNames.code(Int(filterType), [1: "sequence number", 2: "user facing time"])
            )
            if !filterValues.isEmpty { fields["filterValues"] = .array(filterValues.map(\.field)) }
        }
        if !unparsedOperand.isEmpty { fields["operand"] = .string(Hex.string(unparsedOperand)) }
        return fields
    }
}

extension RecordAccessControlPoint {
    /// The requests a collector writes to the Record Access Control Point.
    public enum Request: Sendable, Hashable {
        /// `01 01`: report every stored record.
        case reportAllRecords
        /// `01 03 01` + uint16: report records with sequence number ≥ `fromSequenceNumber` (incremental sync).
        case reportRecords(fromSequenceNumber: UInt16)
        /// `04 01`: report how many records are stored.
        case reportNumberOfAllRecords
        /// `04 03 01` + uint16: report how many records have sequence number ≥ `fromSequenceNumber`.
        case reportNumberOfRecords(fromSequenceNumber: UInt16)
        /// `03 00`: abort the operation in progress.
        case abort

        /// The bytes to write.
        public var bytes: [UInt8] {
            switch self {
            case .reportAllRecords: [0x01, 0x01]
            case .reportRecords(let number): [0x01, 0x03, 0x01, UInt8(number & 0xFF), UInt8(number >> 8)]
            case .reportNumberOfAllRecords: [0x04, 0x01]
            case .reportNumberOfRecords(let number): [0x04, 0x03, 0x01, UInt8(number & 0xFF), UInt8(number >> 8)]
            case .abort: [0x03, 0x00]
            }
        }
    }
}
