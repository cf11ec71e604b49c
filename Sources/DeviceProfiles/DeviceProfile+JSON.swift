import BridgeCore
public import BridgeFoundation
import DeviceSessions
import FrameDecoding
import GATTDecoding

/// Why a profile file could not be read: the JSON path of the field and what is wrong with it.
public struct DeviceProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// JSON path of the offending field, e.g. `characteristics[2].uuid` (empty for the whole file).
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { field.isEmpty ? message : "\(field): \(message)" }
}

extension DeviceProfile {
    /// Reads a profile from its JSON text (the `Devices/*.json` format documented in `Devices/README.md`).
    /// - Throws: ``DeviceProfileError`` naming the field and the problem.
    public init(json text: String) throws(DeviceProfileError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw DeviceProfileError(field: "", message: error.description)
        }
        try self.init(json: value)
    }

    /// Reads a profile from parsed JSON.
    public init(json value: JSONValue) throws(DeviceProfileError) {
        let root = try ProfileReader(value, path: JSONPath())
        try root.allow([
            "id", "name", "match", "link", "characteristics", "serviceData", "quirks", "tuning", "notes",
            "measurementRange", "plausibility", "session", "manufacturerData", "fixtures", "omron", "viatom", "bonding",
        ])
        id = try root.string("id")
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw DeviceProfileError(field: "id", message: "'\(id)' must be non-empty letters, digits, '-', '_' or '.'")
        }
        name = try root.string("name")
        notes = try root.optionalString("notes")
        let linkText = try root.string("link")
        guard let link = ConnectionPlan.LinkMode(rawValue: linkText) else {
            throw DeviceProfileError(field: "link", message: "'\(linkText)' is not a link mode (gatt, broadcast)")
        }
        linkMode = link

        match = try Self.match(try root.object("match"), nested: false)
        if match.isEmpty {
            throw DeviceProfileError(
                field: "match",
                message:
                    "give at least one of serviceUUIDs, serviceData, name, manufacturerID, manufacturerData, "
                    + "serviceDataPatterns"
            )
        }

        characteristics = []
        for reader in try root.objects("characteristics") {
            try reader.allow(["uuid", "use", "decoder", "frames", "role", "multiPacket", "quirks", "frameLength"])
            let useText = try reader.string("use")
            guard let use = Characteristic.Use(rawValue: useText) else {
                throw reader.problem("use", "'\(useText)' is not one of notify, indicate, read, write")
            }
            var role = Characteristic.Role.measurement
            if let roleText = try reader.optionalString("role") {
                guard let parsed = Characteristic.Role(rawValue: roleText) else {
                    let roles = Characteristic.Role.allCases.map(\.rawValue).joined(separator: ", ")
                    throw reader.problem("role", "'\(roleText)' is not one of \(roles)")
                }
                role = parsed
            }
            let frames = try reader.frames()
            let uuid = try reader.uuid("uuid")
            var characteristic: Characteristic
            if use == .write {
                for key in ["decoder", "frames", "role", "multiPacket", "quirks", "frameLength"]
                where reader.object[key] != nil {
                    throw reader.problem(key, "a write characteristic is only written by the session; nothing reads it")
                }
                characteristic = Characteristic(uuid: uuid, use: use, reading: .written)
            } else if let frames {
                for key in ["decoder", "multiPacket", "quirks"] where reader.object[key] != nil {
                    throw reader.problem(key, "give frames or a decoder, not both")
                }
                if role != .measurement {
                    throw reader.problem(
                        "role",
                        "frames make measurements (a frame's final conditions mark intermediate values)"
                    )
                }
                let length = try reader.optionalInt("frameLength")
                if let length, length < 1 { throw reader.problem("frameLength", "expected a length ≥ 1 byte") }
                characteristic = Characteristic(uuid: uuid, use: use, reading: .frames(frames, frameLength: length))
            } else {
                guard reader.object["decoder"] != nil else {
                    throw reader.problem("decoder", "missing (give a decoder or frames)")
                }
                if reader.object["frameLength"] != nil {
                    throw reader.problem("frameLength", "only a value read by frames can carry several of them")
                }
                let decoder = try reader.decoder("decoder")
                let reading: Characteristic.Reading
                do {
                    reading = try Characteristic.Reading(
                        decoder,
                        role: role,
                        multiPacket: try reader.optionalBool("multiPacket") ?? false
                    )
                } catch {
                    throw reader.problem(error.field, error.message)
                }
                characteristic = Characteristic(uuid: uuid, use: use, reading: reading)
                if let quirks = try reader.optionalObject("quirks") {
                    try quirks.allow(["bigEndian", "userIDAlwaysPresent", "zeroMeansAbsent", "ignoreTimeOffset"])
                    let wanted = PayloadQuirks(
                        bigEndian: Set(try quirks.strings("bigEndian")),
                        userIDAlwaysPresent: try quirks.optionalBool("userIDAlwaysPresent") ?? false,
                        zeroMeansAbsent: Set(try quirks.strings("zeroMeansAbsent")),
                        ignoreTimeOffset: try quirks.optionalBool("ignoreTimeOffset") ?? false
                    )
                    if let problem = wanted.problem(for: decoder.type) { throw reader.problem("quirks", problem) }
                    characteristic.overlay = QuirkOverlay(wanted, for: decoder.type)
                }
            }
            if characteristics.contains(where: { $0.uuid == characteristic.uuid }) {
                throw reader.problem("uuid", "\(characteristic.uuid) is listed twice")
            }
            characteristics.append(characteristic)
        }

        serviceData = []
        for reader in try root.objects("serviceData") {
            try reader.allow(["uuid", "decoder", "frames", "envelope"])
            let uuid = try reader.uuid("uuid")
            var envelope: ServiceData.Envelope?
            if let name = try reader.optionalString("envelope") {
                guard let known = ServiceData.Envelope(rawValue: name) else {
                    let names = ServiceData.Envelope.allCases.map(\.rawValue).joined(separator: ", ")
                    throw reader.problem("envelope", "unknown envelope '\(name)' (known: \(names))")
                }
                envelope = known
            }
            if let frames = try reader.frames() {
                if reader.object["decoder"] != nil {
                    throw reader.problem("decoder", "give frames or a decoder, not both")
                }
                serviceData.append(ServiceData(uuid: uuid, decoder: nil, frames: frames, envelope: envelope))
                continue
            }
            if envelope != nil { throw reader.problem("envelope", "an envelope is read by frames: give frames") }
            guard reader.object["decoder"] != nil else {
                throw reader.problem("decoder", "missing (give a decoder or frames)")
            }
            let decoder = try reader.decoder("decoder")
            guard let producing = decoder.type as? any SampleProducing.Type else {
                throw reader.problem("decoder", "\(decoder.identifier) gives no samples from an advertisement")
            }
            serviceData.append(ServiceData(uuid: uuid, decoder: producing))
        }
        manufacturerData = []
        for reader in try root.objects("manufacturerData") {
            try reader.allow(["company", "frames"])
            guard let company = try reader.optionalCompanyID("company") else {
                throw reader.problem("company", "missing (expected a company id, integer or hex string)")
            }
            guard let frames = try reader.frames() else {
                throw reader.problem("frames", "missing (expected an array)")
            }
            if manufacturerData.contains(where: { $0.company == company }) {
                throw reader.problem("company", "company \(AdvertisedDataPattern.Key.hex(company)) is listed twice")
            }
            manufacturerData.append(ManufacturerData(company: company, frames: frames))
        }
        var frameSets: [(frames: FrameSet, path: JSONPath)] = []
        for (index, entry) in characteristics.enumerated() {
            if let frames = entry.frames {
                frameSets.append(
                    (frames, JSONPath().appending("characteristics").appending(index: index).appending("frames"))
                )
            }
        }
        for (index, entry) in serviceData.enumerated() {
            if let frames = entry.frames {
                frameSets.append(
                    (frames, JSONPath().appending("serviceData").appending(index: index).appending("frames"))
                )
            }
        }
        for (index, entry) in manufacturerData.enumerated() {
            frameSets.append(
                (entry.frames, JSONPath().appending("manufacturerData").appending(index: index).appending("frames"))
            )
        }
        try root.mapped { () throws(JSONReadError) in try FrameSet.checkMerges(frameSets) }
        if linkMode == .broadcast, serviceData.isEmpty, manufacturerData.isEmpty {
            throw DeviceProfileError(
                field: "serviceData",
                message: "a broadcast profile needs at least one serviceData or manufacturerData entry"
            )
        }
        if let value = root.object["omron"] {
            omron = try OmronMemoryMap(profileJSON: JSONReader(value, path: JSONPath().appending("omron")))
        }
        if let value = root.object["viatom"] {
            viatom = try ViatomDownload(profileJSON: JSONReader(value, path: JSONPath().appending("viatom")))
        }
        if linkMode == .gatt, characteristics.isEmpty, omron == nil, viatom == nil {
            throw DeviceProfileError(field: "characteristics", message: "a gatt profile needs at least one entry")
        }

        quirks = Quirks()
        if let reader = try root.optionalObject("quirks") {
            try reader.allow([
                "clockUnreliable", "broadcastRepeats", "pairingRequired", "setDeviceClock", "deviceTimeIsUTC",
                "finalRepeats", "broadcastStream",
            ])
            quirks.broadcastStream = try reader.optionalBool("broadcastStream") ?? false
            quirks.finalRepeats = try reader.optionalBool("finalRepeats") ?? false
            quirks.deviceTimeIsUTC = try reader.optionalBool("deviceTimeIsUTC") ?? false
            quirks.clockUnreliable = try reader.optionalBool("clockUnreliable") ?? false
            quirks.broadcastRepeats = try reader.optionalBool("broadcastRepeats") ?? false
            quirks.pairingRequired = try reader.optionalBool("pairingRequired") ?? false
            quirks.setDeviceClock = try reader.optionalBool("setDeviceClock") ?? false
        }

        if let text = try root.optionalString("bonding") {
            guard let renewal = BondRenewal(rawValue: text) else {
                throw DeviceProfileError(
                    field: "bonding",
                    message: "'\(text)' is not a bonding policy (once, everySession)"
                )
            }
            guard quirks.pairingRequired else {
                throw DeviceProfileError(field: "bonding", message: "a bonding policy needs quirks.pairingRequired")
            }
            bonding = renewal
        }

        tuning = Tuning()
        if let reader = try root.optionalObject("tuning") {
            try reader.allow(["reconnectBackoff", "reconnectBackoffMax", "notifySetupDelay", "weighInGap"])
            tuning.reconnectBackoff = try reader.optionalSeconds("reconnectBackoff") ?? tuning.reconnectBackoff
            tuning.reconnectBackoffMax = try reader.optionalSeconds("reconnectBackoffMax") ?? tuning.reconnectBackoffMax
            tuning.notifySetupDelay = try reader.optionalSeconds("notifySetupDelay") ?? tuning.notifySetupDelay
            tuning.weighInGap = try reader.optionalSeconds("weighInGap") ?? tuning.weighInGap
        }
        measurementRanges = try root.optionalObject("measurementRange")?.ranges() ?? [:]
        plausibility = try root.optionalObject("plausibility")?.ranges() ?? [:]
        if let value = root.object["session"] {
            session = try SessionScript(
                profileJSON: JSONReader(value, path: JSONPath().appending("session")),
                characteristics: characteristics
            )
        }
        if let omron {
            // The download runs after the profile's own steps; its cursor is kept with the other variables.
            session.steps.append(.omronMemoryMap(omron))
            session.persist += omron.persistedVariables.filter { !session.persist.contains($0) }
        }
        if let viatom {
            // The file download runs after the profile's own steps; the files it read are kept between sessions.
            session.steps.append(.viatomFiles(viatom))
            if !session.persist.contains(ViatomDownload.cursorVariable) {
                session.persist.append(ViatomDownload.cursorVariable)
            }
        }
        if let member = root.members["fixtures"] {
            fixtures = try root.mapped { () throws(JSONReadError) in try ProfileFixture.list(json: member) }
        }
    }
}

extension DeviceProfile {
    /// A `match` object; `nested` for its `not` (no priority, no further `not`).
    fileprivate static func match(_ reader: ProfileReader, nested: Bool) throws(DeviceProfileError) -> Match {
        var keys: Set<String> = [
            "serviceUUIDs", "serviceData", "name", "manufacturerID", "manufacturerData", "serviceDataPatterns",
        ]
        if !nested { keys.formUnion(["priority", "not"]) }
        try reader.allow(keys)
        var match = Match(
            serviceUUIDs: try reader.uuids("serviceUUIDs"),
            serviceData: try reader.uuids("serviceData"),
            namePattern: try reader.optionalString("name"),
            manufacturerID: try reader.optionalCompanyID("manufacturerID"),
            priority: try reader.optionalInt("priority") ?? 0
        )
        for entry in try reader.objects("manufacturerData") {
            try entry.allow(Set(["company"] + ValuePattern.keys))
            guard let company = try entry.optionalCompanyID("company") else {
                throw entry.problem("company", "missing (expected a company id, integer or hex string)")
            }
            match.manufacturerData.append(
                AdvertisedDataPattern(key: .company(company), pattern: try entry.valuePattern())
            )
        }
        for entry in try reader.objects("serviceDataPatterns") {
            try entry.allow(Set(["uuid"] + ValuePattern.keys))
            match.serviceDataPatterns.append(
                AdvertisedDataPattern(key: .serviceData(try entry.uuid("uuid")), pattern: try entry.valuePattern())
            )
        }
        if let not = try reader.optionalObject("not") {
            let exclusion = try Self.match(not, nested: true)
            if exclusion.isEmpty && exclusion.exclusions.isEmpty {
                throw reader.problem("not", "give at least one criterion (an empty not would refuse every device)")
            }
            match.exclusions = [exclusion]
        }
        return match
    }
}

/// Typed access to one JSON object of a profile, with errors that name the field's path (a ``JSONObjectReader``
/// with the profile format's messages).
private struct ProfileReader {
    let members: JSONObjectReader

    init(_ value: JSONValue, path: JSONPath) throws(DeviceProfileError) {
        do {
            members = try JSONReader(value, path: path).object()
        } catch {
            throw DeviceProfileError(field: path.description, message: "expected an object")
        }
    }

    var object: JSONObject { members.object }

    func fieldPath(_ key: String) -> JSONPath { members.path.appending(key) }

    func problem(_ key: String, _ message: String) -> DeviceProfileError {
        DeviceProfileError(field: fieldPath(key).description, message: message)
    }

    func allow(_ keys: Set<String>) throws(DeviceProfileError) {
        for key in object.keys where !keys.contains(key) && !key.hasPrefix("_") {
            throw problem(key, "unknown key (known: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ key: String) throws(DeviceProfileError) -> String {
        guard let value = try optionalString(key) else { throw problem(key, "missing (expected a string)") }
        return value
    }

    func optionalString(_ key: String) throws(DeviceProfileError) -> String? {
        guard let member = members[key] else { return nil }
        guard case .string(let string) = member.value else { throw problem(key, "expected a string") }
        return string
    }

    func optionalBool(_ key: String) throws(DeviceProfileError) -> Bool? {
        guard let member = members[key] else { return nil }
        guard case .bool(let bool) = member.value else { throw problem(key, "expected true or false") }
        return bool
    }

    func optionalInt(_ key: String) throws(DeviceProfileError) -> Int? {
        guard let member = members[key] else { return nil }
        guard case .int(let int) = member.value else { throw problem(key, "expected an integer") }
        return int
    }

    /// An optional array of strings (empty when absent).
    func strings(_ key: String) throws(DeviceProfileError) -> [String] {
        guard let value = object[key], value != .null else { return [] }
        guard case .array(let values) = value else { throw problem(key, "expected an array of strings") }
        var strings: [String] = []
        for value in values {
            guard case .string(let text) = value else { throw problem(key, "expected an array of strings") }
            strings.append(text)
        }
        return strings
    }

    /// Ranges by quantity type: `{"bloodGlucose": {"low": 20, "high": 600, "unit": "mg/dL"}}`, converted to the
    /// type's canonical unit (the unit defaults to it).
    func ranges() throws(DeviceProfileError) -> [QuantityType: ClosedRange<Double>] {
        var ranges: [QuantityType: ClosedRange<Double>] = [:]
        for key in object.keys.sorted() where !key.hasPrefix("_") {
            guard let type = QuantityType(rawValue: key) else {
                throw problem(key, "not a quantity type (e.g. bloodGlucose, heartRate, bodyTemperature)")
            }
            let reader = try self.object(key)
            try reader.allow(["low", "high", "unit"])
            guard let low = reader.object["low"]?.doubleValue, let high = reader.object["high"]?.doubleValue,
                low.isFinite, high.isFinite, low <= high
            else { throw problem(key, "expected numbers low ≤ high") }
            let unitText = try reader.optionalString("unit")
            let unit =
                try unitText.map { text throws(DeviceProfileError) -> HealthUnit in
                    guard let unit = HealthUnit(parsing: text) else {
                        throw reader.problem("unit", "unknown unit '\(text)'")
                    }
                    return unit
                } ?? type.canonicalUnit
            guard let lower = unit.convert(low, to: type.canonicalUnit),
                let upper = unit.convert(high, to: type.canonicalUnit)
            else {
                throw reader.problem("unit", "\(unit) cannot express \(type.title) (canonical \(type.canonicalUnit))")
            }
            ranges[type] = min(lower, upper)...max(lower, upper)
        }
        return ranges
    }

    func optionalSeconds(_ key: String) throws(DeviceProfileError) -> Double? {
        guard let member = members[key] else { return nil }
        guard let seconds = member.value.doubleValue, seconds >= 0, seconds.isFinite else {
            throw problem(key, "expected a non-negative number of seconds")
        }
        return seconds
    }

    /// A company identifier: an integer, or hex text such as `0157` / `0x0157`.
    func optionalCompanyID(_ key: String) throws(DeviceProfileError) -> UInt16? {
        guard let member = members[key] else { return nil }
        switch member.value {
        case .int(let int):
            guard let id = UInt16(exactly: int) else { throw problem(key, "\(int) is not a 16-bit company id") }
            return id
        case .string(let text):
            var digits = Substring(text)
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
            guard let id = UInt16(digits, radix: 16) else {
                throw problem(key, "'\(text)' is not a 16-bit company id in hex")
            }
            return id
        default:
            throw problem(key, "expected a company id (integer or hex string)")
        }
    }

    /// A decoder named by its catalogue identifier, resolved now: an unknown name is an error at its path
    /// listing the decoders this build has.
    func decoder(_ key: String) throws(DeviceProfileError) -> PayloadDecoder {
        let identifier = try string(key)
        guard let decoder = PayloadDecoder(identifier: identifier) else {
            let known = DecoderCatalog.all.map { $0.identifier }
            throw problem(key, "unknown decoder '\(identifier)' (known: \(known.joined(separator: ", ")))")
        }
        return decoder
    }

    func uuid(_ key: String) throws(DeviceProfileError) -> BluetoothUUID {
        let text = try string(key)
        guard let uuid = BluetoothUUID(text) else { throw problem(key, "'\(text)' is not a Bluetooth UUID") }
        return uuid
    }

    func uuids(_ key: String) throws(DeviceProfileError) -> [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for (index, entry) in try array(key, required: false).enumerated() {
            guard case .string(let text) = entry, let uuid = BluetoothUUID(text) else {
                throw DeviceProfileError(
                    field: fieldPath(key).appending(index: index).description,
                    message: "expected a Bluetooth UUID"
                )
            }
            result.append(uuid)
        }
        return result
    }

    func array(_ key: String, required: Bool) throws(DeviceProfileError) -> [JSONValue] {
        guard let member = members[key] else {
            if required { throw problem(key, "missing (expected an array)") }
            return []
        }
        guard case .array(let array) = member.value else { throw problem(key, "expected an array") }
        return array
    }

    /// The array `key`'s elements as readers of objects, each with its path.
    func objects(_ key: String) throws(DeviceProfileError) -> [ProfileReader] {
        var readers: [ProfileReader] = []
        for (index, entry) in try array(key, required: false).enumerated() {
            readers.append(try ProfileReader(entry, path: fieldPath(key).appending(index: index)))
        }
        return readers
    }

    func object(_ key: String) throws(DeviceProfileError) -> ProfileReader {
        guard let reader = try optionalObject(key) else { throw problem(key, "missing (expected an object)") }
        return reader
    }

    /// The entry's `frames`, parsed into typed frames now; nil when the entry has none.
    func frames() throws(DeviceProfileError) -> FrameSet? {
        guard let member = members["frames"] else { return nil }
        return try mapped { () throws(JSONReadError) in try FrameSet(json: member) }
    }

    /// The ``ValuePattern`` written in this object's `prefix`, `mask`, `offset` and `length`.
    func valuePattern() throws(DeviceProfileError) -> ValuePattern {
        try mapped { () throws(JSONReadError) in try ValuePattern(members: members) }
    }

    /// Runs a reader of the shared JSON layer and gives its error the profile format's shape.
    func mapped<T>(_ body: () throws(JSONReadError) -> T) throws(DeviceProfileError) -> T {
        do {
            return try body()
        } catch {
            throw DeviceProfileError(field: error.path.description, message: error.message)
        }
    }

    func optionalObject(_ key: String) throws(DeviceProfileError) -> ProfileReader? {
        guard let member = members[key] else { return nil }
        return try ProfileReader(member.value, path: member.path)
    }
}
