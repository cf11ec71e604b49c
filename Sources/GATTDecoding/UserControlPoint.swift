public import BridgeFoundation

/// User Control Point (0x2A9F) of the User Data Service (0x181C): how a collector registers a user on a
/// multi-user scale and gets its consent to that user's data.
///
/// `01 <consent code u16>` registers a new user, `02 <user index> <consent code u16>` gives consent,
/// `03` deletes the current user's data; the scale answers with `20 <request op> <result> [user index]`.
/// - SeeAlso: User Data Service 1.0 §3.3 (User Control Point); GATT Specification Supplement §3.User Control Point.
public struct UserControlPoint: GATTPayload, Hashable {
    public static let identifier = "user-control-point"
    public static let name = "User Control Point"
    public static let source = PayloadSource.characteristic(BluetoothUUID(0x2A9F))

    public struct OpCode: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let registerNewUser = OpCode(rawValue: 0x01)
        public static let consent = OpCode(rawValue: 0x02)
        public static let deleteUserData = OpCode(rawValue: 0x03)
        public static let listAllUsers = OpCode(rawValue: 0x04)
        public static let deleteUsers = OpCode(rawValue: 0x05)
        public static let responseCode = OpCode(rawValue: 0x20)

        public var name: String {
            switch rawValue {
            case 0x01: "register new user"
            case 0x02: "consent"
            case 0x03: "delete user data"
            case 0x04: "list all users"
            case 0x05: "delete user(s)"
            case 0x20: "response code"
            default: "reserved (0x\(String(rawValue, radix: 16)))"
            }
        }
    }

    public struct Result: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = Result(rawValue: 0x01)
        public static let opCodeNotSupported = Result(rawValue: 0x02)
        public static let invalidParameter = Result(rawValue: 0x03)
        public static let operationFailed = Result(rawValue: 0x04)
        public static let userNotAuthorized = Result(rawValue: 0x05)

        public var name: String {
            switch rawValue {
            case 0x01: "success"
            case 0x02: "op code not supported"
            case 0x03: "invalid parameter"
            case 0x04: "operation failed"
            case 0x05: "user not authorized"
            default: "reserved (0x\(String(rawValue, radix: 16)))"
            }
        }
    }

    public var opCode: OpCode
    /// For a response: the request it answers, its result and (register new user) the new user's index.
    public var requestOpCode: OpCode?
    public var result: Result?
    public var userIndex: UInt8?
    /// For a request: the consent code.
    public var consentCode: UInt16?
    /// Any further parameter bytes.
    public var parameter: [UInt8]

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        opCode = OpCode(rawValue: try reader.read(UInt8.self, field: "Op Code"))
        switch opCode {
        case .responseCode:
            requestOpCode = OpCode(rawValue: try reader.read(UInt8.self, field: "Request Op Code"))
            result = Result(rawValue: try reader.read(UInt8.self, field: "Response Value"))
            if requestOpCode == .registerNewUser, result == .success, reader.remaining > 0 {
                userIndex = try reader.read(UInt8.self, field: "User Index")
            }
        case .registerNewUser:
            consentCode = try reader.read(UInt16.self, field: "Consent Code")
        case .consent:
            userIndex = try reader.read(UInt8.self, field: "User Index")
            consentCode = try reader.read(UInt16.self, field: "Consent Code")
        default:
            break
        }
        parameter = reader.readRemaining()
    }

    public var fields: JSONObject {
        var fields: JSONObject = ["opCode": .string(opCode.name)]
        if let requestOpCode { fields["requestOpCode"] = .string(requestOpCode.name) }
        if let result { fields["result"] = .string(result.name) }
        if let userIndex { fields["userIndex"] = .int(Int(userIndex)) }
        if consentCode != nil { fields["consentCode"] = .string("(given)") }
        if !parameter.isEmpty { fields["parameter"] = .string(Hex.string(parameter)) }
        return fields
    }
}
