import BridgeCore
public import BridgeFoundation
public import DeviceSessions
import GATTDecoding

extension OmronMemoryMap {
    /// Reads a profile's `omron` section (format in `Devices/README.md`, "Omron memory-map engine").
    /// - Throws: ``DeviceProfileError`` naming the field.
    public init(profileJSON reader: JSONReader) throws(DeviceProfileError) {
        do throws(JSONReadError) {
            let object = try reader.object(
                allowing: [
                    "model", "users", "recordSize", "blockSize", "layout", "indexPointers", "channels", "unlockKey",
                    "unlock",
                    "timeout", "retries",
                ],
                ignoringPrefix: "_"
            )
            let recordSize = try Self.count(object.required("recordSize"), in: 1...255)
            var users: [UserArea] = []
            for entry in try object.required("users").array() {
                let area = try entry.object(allowing: ["start", "count"], ignoringPrefix: "_")
                users.append(
                    UserArea(
                        start: try Self.address(area.required("start")),
                        count: try Self.count(area.required("count"), in: 1...4096)
                    )
                )
            }
            guard !users.isEmpty else { throw object.error("users", "give at least one user area") }
            for (index, area) in users.enumerated() where area.start + area.count * recordSize > 0x10000 {
                throw object.error("users", "user \(index + 1)'s area ends past the 16-bit address space")
            }
            let layout = try Self.layout(object.required("layout"))
            if layout.minimumRecordSize > recordSize {
                throw object.error(
                    "layout",
                    "the fields read \(layout.minimumRecordSize) bytes, more than the record size \(recordSize)"
                )
            }
            var pointers: IndexPointers?
            if let pointerReader = object["indexPointers"] {
                let members = try pointerReader.object(allowing: ["address", "size", "users"], ignoringPrefix: "_")
                var list: [IndexPointers.Pointer] = []
                let size = try Self.count(members.required("size"), in: 2...56)
                for entry in try members.required("users").array() {
                    let pointer = try entry.object(allowing: ["at", "type", "mask", "points"], ignoringPrefix: "_")
                    let type = try pointer["type"]?.string() ?? "u16be"
                    guard type == "u16be" || type == "u16le" else {
                        throw pointer.error("type", "'\(type)' is not u16le or u16be")
                    }
                    let points = try pointer["points"]?.string() ?? "next"
                    guard points == "next" || points == "last" else {
                        throw pointer.error("points", "'\(points)' is not next or last")
                    }
                    let at = try Self.count(pointer.required("at"), in: 0...(size - 2))
                    list.append(
                        IndexPointers.Pointer(
                            offset: at,
                            bigEndian: type == "u16be",
                            mask: try pointer["mask"].map { reader throws(JSONReadError) in try Self.address(reader) }
                                ?? 0xFF,
                            pointsToNext: points == "next"
                        )
                    )
                }
                guard list.count == users.count else {
                    throw members.error("users", "give one pointer per user area (\(users.count))")
                }
                pointers = IndexPointers(
                    address: try Self.address(members.required("address")),
                    size: size,
                    users: list
                )
            }
            var channels = Channels.classic
            if let channelReader = object["channels"] {
                let members = try channelReader.object(allowing: ["tx", "rx", "unlock"], ignoringPrefix: "_")
                channels = Channels(
                    tx: try Self.uuids(members.required("tx")),
                    rx: try Self.uuids(members.required("rx")),
                    unlock: try members["unlock"].map { reader throws(JSONReadError) in try Self.uuid(reader) }
                )
                if channels.tx.isEmpty || channels.rx.isEmpty {
                    throw channelReader.error("tx and rx need at least one characteristic each")
                }
            }
            var key: [UInt8]?
            if let keyReader = object["unlockKey"] {
                let text = try keyReader.string()
                guard let bytes = try? Hex.bytes(text), bytes.count == 16 else {
                    throw keyReader.error("expected 16 bytes in hex")
                }
                key = bytes
            }
            let timeout = try object["timeout"]?.number() ?? 5
            guard timeout > 0, timeout <= 120 else { throw object.error("timeout", "expected 0…120 seconds") }
            self.init(
                model: try object.required("model").string(),
                users: users,
                recordSize: recordSize,
                blockSize: try object["blockSize"].map { reader throws(JSONReadError) in
                    try Self.count(reader, in: 1...240)
                } ?? recordSize,
                layout: layout,
                indexPointers: pointers,
                channels: channels,
                unlockKey: key,
                timeout: timeout,
                retries: try object["retries"].map { reader throws(JSONReadError) in try Self.count(reader, in: 0...10)
                }
                    ?? 3
            )
            if let modeReader = object["unlock"] {
                let text = try modeReader.string()
                guard let mode = UnlockMode(rawValue: text) else {
                    throw modeReader.error("'\(text)' is not an unlock mode (key, token)")
                }
                guard channels.unlock != nil else {
                    throw modeReader.error("an unlock mode needs channels.unlock (the characteristic it is written to)")
                }
                unlockMode = mode
            }
        } catch {
            throw DeviceProfileError(field: error.path.description, message: error.message)
        }
    }

    static func layout(_ reader: JSONReader) throws(JSONReadError) -> OmronRecordLayout {
        let object = try reader.object(allowing: ["fields", "samples", "flags", "extras"], ignoringPrefix: "_")
        var fields: [OmronRecordLayout.Field] = []
        for entry in try object.required("fields").array() {
            let field = try entry.object(
                allowing: ["name", "at", "type", "bits", "add", "max", "scale", "absent"],
                ignoringPrefix: "_"
            )
            let typeText = try field.required("type").string()
            guard let kind = OmronRecordLayout.Field.Kind(rawValue: typeText) else {
                let known = OmronRecordLayout.Field.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw field.error("type", "'\(typeText)' is not one of \(known)")
            }
            var bits: ClosedRange<Int>?
            if let bitsReader = field["bits"] {
                let text = try bitsReader.string()
                let parts = text.split(separator: "-").map { Int($0.filter { $0 != " " }) }
                guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil,
                    low <= high, high < kind.bitWidth
                else {
                    throw bitsReader.error("expected a bit \"5\" or a range \"0-11\" within the \(kind.rawValue)")
                }
                bits = low...high
            }
            let name = try field.required("name").string()
            if fields.contains(where: { $0.name == name }) { throw field.error("name", "'\(name)' is defined twice") }
            fields.append(
                OmronRecordLayout.Field(
                    name: name,
                    at: try Self.count(field.required("at"), in: 0...255),
                    kind: kind,
                    bits: bits,
                    add: try field["add"]?.integer(in: ValueLimits.addend) ?? 0,
                    max: try field["max"]?.integer(),
                    scale: try Self.scale(field["scale"]),
                    absent: try field["absent"]?.integers() ?? []
                )
            )
        }
        var samples: [OmronRecordLayout.Sample] = []
        for entry in try object.required("samples").array() {
            let sample = try entry.object(allowing: ["type", "field", "unit"], ignoringPrefix: "_")
            let typeText = try sample.required("type").string()
            guard let type = QuantityType(rawValue: typeText) else {
                throw sample.error(
                    "type",
                    "'\(typeText)' is not a quantity type (e.g. bloodPressureSystolic, heartRate)"
                )
            }
            let unitText = try sample.required("unit").string()
            guard let unit = HealthUnit(parsing: unitText), unit.convert(1, to: type.canonicalUnit) != nil else {
                throw sample.error("unit", "'\(unitText)' is not a unit of \(type.title)")
            }
            samples.append(
                OmronRecordLayout.Sample(type: type, field: try sample.required("field").string(), unit: unit)
            )
        }
        var flags: [OmronRecordLayout.Flag] = []
        for entry in try object["flags"]?.array() ?? [] {
            let flag = try entry.object(allowing: ["field", "condition"], ignoringPrefix: "_")
            flags.append(
                OmronRecordLayout.Flag(
                    field: try flag.required("field").string(),
                    condition: try flag.required("condition").string()
                )
            )
        }
        var extras: [OmronRecordLayout.Extra] = []
        for entry in try object["extras"]?.array() ?? [] {
            let extra = try entry.object(allowing: ["key", "field", "on"], ignoringPrefix: "_")
            let key = try extra.required("key").string()
            guard !key.isEmpty, !key.contains(where: \.isWhitespace), !["userID", "memorySlot"].contains(key) else {
                throw extra.error(
                    "key",
                    "'\(key)' is not a metadata key of its own (no spaces; not userID or memorySlot)"
                )
            }
            let onText = try extra.required("on").string()
            guard let on = QuantityType(rawValue: onText), samples.contains(where: { $0.type == on }) else {
                throw extra.error("on", "'\(onText)' is not the type of one of the layout's samples")
            }
            extras.append(OmronRecordLayout.Extra(key: key, field: try extra.required("field").string(), on: on))
        }
        let layout = OmronRecordLayout(fields: fields, samples: samples, flags: flags, extras: extras)
        if let problem = layout.problem { throw reader.error(problem) }
        return layout
    }

    /// A field's `scale`: a finite number other than 0 (1 without one).
    static func scale(_ reader: JSONReader?) throws(JSONReadError) -> Double {
        guard let reader else { return 1 }
        let scale = try reader.number(magnitudeAtMost: ValueLimits.magnitude)
        guard scale != 0 else { throw reader.error("a scale of 0 makes every value 0") }
        return scale
    }

    /// A whole number in `range`: an integer, or hex text (`"0x02AC"`).
    static func count(_ reader: JSONReader, in range: ClosedRange<Int>) throws(JSONReadError) -> Int {
        let value = try address(reader)
        guard range.contains(value) else { throw reader.error("expected \(range.lowerBound)…\(range.upperBound)") }
        return value
    }

    /// An address or mask: an integer, or hex text (`"0x02AC"`), 0…0xFFFF.
    static func address(_ reader: JSONReader) throws(JSONReadError) -> Int {
        let value: Int
        if case .string(let text) = reader.value {
            var digits = Substring(text)
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
            guard let parsed = Int(digits, radix: 16) else { throw reader.error("'\(text)' is not a hex number") }
            value = parsed
        } else {
            value = try reader.integer()
        }
        guard (0...0xFFFF).contains(value) else { throw reader.error("expected 0…0xFFFF") }
        return value
    }

    static func uuid(_ reader: JSONReader) throws(JSONReadError) -> BluetoothUUID {
        let text = try reader.string()
        guard let uuid = BluetoothUUID(text) else { throw reader.error("'\(text)' is not a Bluetooth UUID") }
        return uuid
    }

    static func uuids(_ reader: JSONReader) throws(JSONReadError) -> [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for entry in try reader.array() { result.append(try uuid(entry)) }
        return result
    }
}

extension OmronRecordLayout.Field.Kind {
    var bitWidth: Int {
        switch self {
        case .u8: 8
        case .u16le, .u16be: 16
        case .u32le, .u32be: 32
        }
    }
}
