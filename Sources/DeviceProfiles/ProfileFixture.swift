public import BridgeCore
public import BridgeFoundation
import GATTDecoding

/// One `fixtures` entry of a profile: values (hex) fed through the ingest pipeline and the samples they must give.
public struct ProfileFixture: Sendable, Hashable {
    /// Where a fixture value comes from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        case characteristic(BluetoothUUID)
        case serviceData(BluetoothUUID)
        case manufacturerData(UInt16)
        /// A request the bridge wrote (`written`): for a protocol whose responses do not say what they answer, the
        /// record reader sees it as in a session.
        case written(BluetoothUUID)

        public var description: String {
            switch self {
            case .characteristic(let uuid): "characteristic \(uuid)"
            case .written(let uuid): "written \(uuid)"
            case .serviceData(let uuid): "serviceData \(uuid)"
            case .manufacturerData(let company): "manufacturerData \(AdvertisedDataPattern.Key.hex(company))"
            }
        }
    }

    /// One value fed to the pipeline.
    public struct Value: Sendable, Hashable {
        public var source: Source
        public var bytes: [UInt8]

        public init(source: Source, bytes: [UInt8]) {
            self.source = source
            self.bytes = bytes
        }
    }

    /// One sample the values must give, in order.
    public struct Expectation: Sendable, Hashable {
        public var type: QuantityType
        public var value: Double
        /// The unit ``value`` is in (the type's canonical unit when not given).
        public var unit: HealthUnit
        /// Metadata `userID` (the device's user slot).
        public var userIndex: Int?
        /// Device wall-clock time `2024-03-01T07:12:00`.
        public var time: String?
        public var comparator: ValueComparator?
        /// Compare the value exactly rather than to the unit's shown precision.
        public var exact: Bool = false

        public init(type: QuantityType, value: Double, unit: HealthUnit) {
            self.type = type
            self.value = value
            self.unit = unit
        }
    }

    public var name: String
    public var origin: String?
    /// When given, `profile test` checks that of all loaded profiles this one claims it.
    public var advertisement: Advertisement?
    public var values: [Value]
    public var expect: [Expectation]
    /// Texts each of which must appear in one of the pipeline's warnings: why a value was refused (a checksum that
    /// does not hold), so a fixture that expects nothing stored also says for which reason.
    public var warnings: [String]
    /// The device's address in the synthetic recording (`address`; default a fixed local address): an encrypted
    /// advertisement's nonce may be made from it.
    public var address: String?
    /// The bind key the fixture's device is given (`bindKey`, 32 hex digits): published test keys only.
    public var bindKey: [UInt8]?

    public init(
        name: String,
        origin: String? = nil,
        advertisement: Advertisement? = nil,
        values: [Value],
        expect: [Expectation],
        warnings: [String] = []
    ) {
        self.name = name
        self.origin = origin
        self.advertisement = advertisement
        self.values = values
        self.expect = expect
        self.warnings = warnings
    }

    /// Reads a `fixtures` array.
    /// - Throws: ``JSONReadError`` at the offending member.
    public static func list(json reader: JSONReader) throws(JSONReadError) -> [ProfileFixture] {
        var fixtures: [ProfileFixture] = []
        for element in try reader.array() { fixtures.append(try ProfileFixture(json: element)) }
        return fixtures
    }

    public init(json reader: JSONReader) throws(JSONReadError) {
        let members = try reader.object(
            allowing: ["name", "origin", "advertisement", "values", "expect", "warnings", "address", "bindKey"],
            ignoringPrefix: "_"
        )
        name = try members.required("name").string()
        address = try members["address"]?.string()
        if let key = members["bindKey"] {
            let bytes = try Self.hex(key)
            guard bytes.count == 16 else { throw key.error("a bind key has 16 bytes, not \(bytes.count)") }
            bindKey = bytes
        }
        origin = try members["origin"]?.string()
        if let ad = members["advertisement"] {
            advertisement = try Self.advertisement(ad)
        }
        values = []
        for element in try members.required("values").array() {
            let value = try element.object(
                allowing: ["characteristic", "serviceData", "manufacturerData", "written", "hex"],
                ignoringPrefix: "_"
            )
            let sources = ["characteristic", "serviceData", "manufacturerData", "written"].filter { value[$0] != nil }
            guard sources.count == 1, let key = sources.first, let sourceReader = value[key] else {
                throw element.error("give exactly one of characteristic, serviceData, manufacturerData, written")
            }
            let source: Source
            switch key {
            case "manufacturerData": source = .manufacturerData(try Self.company(sourceReader))
            default:
                let text = try sourceReader.string()
                guard let uuid = BluetoothUUID(text) else {
                    throw sourceReader.error("'\(text)' is not a Bluetooth UUID")
                }
                switch key {
                case "characteristic": source = .characteristic(uuid)
                case "written": source = .written(uuid)
                default: source = .serviceData(uuid)
                }
            }
            values.append(Value(source: source, bytes: try Self.hex(try value.required("hex"))))
        }
        warnings = []
        for element in try members["warnings"]?.array() ?? [] { warnings.append(try element.string()) }
        expect = []
        for element in try members.required("expect").array() {
            let entry = try element.object(
                allowing: ["type", "value", "unit", "userIndex", "time", "comparator", "exact"],
                ignoringPrefix: "_"
            )
            let typeReader = try entry.required("type")
            let typeText = try typeReader.string()
            guard let type = QuantityType(rawValue: typeText) else {
                throw typeReader.error("'\(typeText)' is not a quantity type")
            }
            var unit = type.canonicalUnit
            if let unitReader = entry["unit"] {
                let text = try unitReader.string()
                guard let parsed = HealthUnit(parsing: text), parsed.convert(1, to: type.canonicalUnit) != nil else {
                    throw unitReader.error("'\(text)' is not a unit of \(type.title)")
                }
                unit = parsed
            }
            var expectation = Expectation(type: type, value: try entry.required("value").number(), unit: unit)
            expectation.userIndex = try entry["userIndex"]?.integer()
            expectation.time = try entry["time"]?.string()
            if let comparatorReader = entry["comparator"] {
                let text = try comparatorReader.string()
                guard let comparator = ValueComparator(rawValue: text) else {
                    throw comparatorReader.error("expected \"<\" (LO) or \">\" (HI)")
                }
                expectation.comparator = comparator
            }
            expectation.exact = try entry["exact"]?.bool() ?? false
            expect.append(expectation)
        }
    }

    static func hex(_ reader: JSONReader) throws(JSONReadError) -> [UInt8] {
        let text = try reader.string()
        do {
            return try Hex.bytes(text)
        } catch {
            throw reader.error(error.description)
        }
    }

    static func company(_ reader: JSONReader) throws(JSONReadError) -> UInt16 {
        switch reader.value {
        case .int(let value):
            guard let id = UInt16(exactly: value) else { throw reader.error("\(value) is not a 16-bit company id") }
            return id
        default:
            var text = Substring(try reader.string())
            if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
            guard let id = UInt16(text, radix: 16) else { throw reader.error("'\(text)' is not a company id in hex") }
            return id
        }
    }

    static func advertisement(_ reader: JSONReader) throws(JSONReadError) -> Advertisement {
        let members = try reader.object(
            allowing: ["name", "serviceUUIDs", "manufacturerData", "serviceData"],
            ignoringPrefix: "_"
        )
        var advertisement = Advertisement(name: try members["name"]?.string())
        if let uuids = members["serviceUUIDs"] {
            for element in try uuids.array() {
                let text = try element.string()
                guard let uuid = BluetoothUUID(text) else { throw element.error("'\(text)' is not a Bluetooth UUID") }
                advertisement.serviceUUIDs.append(uuid)
            }
        }
        if let data = members["manufacturerData"] {
            let object = try data.object()
            for key in object.keys {
                let company = try Self.company(JSONReader(.string(key), path: object.path.appending(key)))
                advertisement.manufacturerData[company] = try Self.hex(try object.required(key))
            }
        }
        if let data = members["serviceData"] {
            let object = try data.object()
            for key in object.keys {
                guard let uuid = BluetoothUUID(key) else { throw object.error(key, "'\(key)' is not a Bluetooth UUID") }
                advertisement.serviceData[uuid] = try Self.hex(try object.required(key))
            }
        }
        return advertisement
    }
}
