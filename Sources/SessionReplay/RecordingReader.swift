public import BridgeCore
import BridgeFoundation
import Foundation
import GATTDecoding
public import Logging

/// One event of a recording, with where it came from.
public struct RecordedEvent: Sendable, Hashable {
    public var event: TransportEvent
    /// Seconds since the header's `recordedAt`.
    public var t: Double
    public var location: RecordingLocation
    /// The line's `note`, when it has one.
    public var note: String?
}

/// What the reader yields for each line after the header.
public enum RecordingItem: Sendable, Hashable {
    case event(RecordedEvent)
    /// A line that could not be read (invalid JSON, bad hex, bad UUID, missing key); it is skipped.
    case problem(RecordingProblem)
}

/// Streams a recording (JSON Lines) one line at a time: the header first, then one event per line.
///
/// Memory stays flat however long the file is. Unknown kinds and keys are skipped with a warning so newer
/// files stay readable; bad lines come out as ``RecordingItem/problem(_:)`` with `file:line`.
public final class RecordingReader {
    public let path: String
    public let header: RecordingHeader
    private let lines: LineReader
    private let logger: Logger
    private var warnedKeys: Set<String> = []
    private var warnedKinds: Set<String> = []
    private var uuidCache: [String: BluetoothUUID] = [:]

    /// Opens the file and reads its header.
    /// - Throws: ``RecordingError`` when the file cannot be opened or line 1 is not a valid header.
    public init(path: String, logger: Logger) throws(RecordingError) {
        self.path = path
        self.logger = logger
        guard let lines = LineReader(path: path) else {
            throw RecordingError(
                code: .cannotOpen,
                message: "cannot open: \(LineReader.lastErrorDescription)",
                location: RecordingLocation(file: path, line: 0)
            )
        }
        self.lines = lines
        let location = RecordingLocation(file: path, line: 1)
        let parsed = lines.nextLine { bytes in
            Result { () throws(JSONValue.ParseError) in try JSONValue.parse(utf8: bytes, options: Self.parseOptions) }
        }
        guard let parsed else {
            throw RecordingError(
                code: .invalidHeader,
                message: "empty file: expected a header line",
                location: location
            )
        }
        header = try Self.header(from: parsed, location: location)
    }

    /// How lines are parsed: a key named twice is refused (with its line), as in plans and profiles, instead of
    /// the last value silently winning.
    static let parseOptions = JSONValue.ParseOptions(rejectsDuplicateKeys: true)

    /// The next event or bad line; nil at the end of the file.
    public func next() -> RecordingItem? {
        while true {
            let item: RecordingItem?? = lines.nextLine { bytes -> RecordingItem? in
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }  // blank lines are allowed
                let location = RecordingLocation(file: path, line: lines.lineNumber)
                do {
                    let value = try JSONValue.parse(utf8: bytes, options: Self.parseOptions)
                    return try event(from: value, location: location).map(RecordingItem.event)
                } catch let error as JSONValue.ParseError {
                    return .problem(RecordingProblem(location: location, message: error.description))
                } catch let error as LineError {
                    return .problem(RecordingProblem(location: location, message: error.message))
                } catch {
                    return .problem(RecordingProblem(location: location, message: "\(error)"))
                }
            }
            guard let item else { return nil }  // end of file
            if let item { return item }  // otherwise: blank line or skipped kind, read on
        }
    }

    // MARK: - Header

    static func header(
        from parsed: Result<JSONValue, JSONValue.ParseError>,
        location: RecordingLocation
    ) throws(RecordingError) -> RecordingHeader {
        func invalid(_ message: String) -> RecordingError {
            RecordingError(code: .invalidHeader, message: "header: \(message)", location: location)
        }
        let object: JSONObject
        switch parsed {
        case .failure(let error): throw invalid(error.description)
        case .success(let value):
            guard let value = value.objectValue else { throw invalid("expected a JSON object") }
            object = value
        }
        guard object["format"]?.stringValue == RecordingHeader.format else {
            throw invalid("\"format\" must be \"\(RecordingHeader.format)\"")
        }
        guard case .int(let version) = object["version"] else { throw invalid("\"version\" must be an integer") }
        guard version >= 1, version <= RecordingHeader.currentVersion else {
            throw RecordingError(
                code: .unsupportedVersion,
                message:
                    "header: version \(version) is not supported (this build reads 1…\(RecordingHeader.currentVersion))",
                location: location
            )
        }
        var zone: TimeZone?
        if let name = object["timeZone"]?.stringValue {
            guard let parsedZone = TimeZone(identifier: name) else { throw invalid("unknown time zone '\(name)'") }
            zone = parsedZone
        }
        guard let recordedText = object["recordedAt"]?.stringValue else {
            throw invalid("\"recordedAt\" must be an ISO-8601 time with an offset")
        }
        let recordedAt: Date
        do {
            recordedAt = try Timestamp.parse(recordedText, in: zone ?? TimeZone(identifier: "UTC")!)
        } catch {
            throw invalid("\"recordedAt\": \(error.description)")
        }
        var extra = JSONObject()
        for member in object.members where !["format", "version", "recordedAt", "timeZone"].contains(member.key) {
            extra[member.key] = member.value
        }
        return RecordingHeader(version: version, recordedAt: recordedAt, timeZone: zone, extra: extra)
    }

    // MARK: - Events

    struct LineError: Error {
        var message: String
    }

    // Arrays, not sets: a line's few keys are compared with these few names faster than they are hashed.
    private static let commonKeys = ["t", "kind", "device", "note"]
    private static let keysByKind: [String: [String]] = [
        "advertisement": ["name", "rssi", "serviceUUIDs", "serviceData", "manufacturerData"],
        "connected": [],
        "services": ["services"],
        "read": ["characteristic", "value"],
        "notification": ["characteristic", "value"],
        "indication": ["characteristic", "value"],
        "write": ["characteristic", "value", "response"],
        "disconnected": ["reason"],
        "error": ["message"],
    ]

    private func event(from value: JSONValue, location: RecordingLocation) throws(LineError) -> RecordedEvent? {
        guard case .object(let object) = value else { throw LineError(message: "expected a JSON object") }
        guard let kind = object["kind"]?.stringValue else { throw LineError(message: "missing \"kind\"") }
        guard let known = Self.keysByKind[kind] else {
            if warnedKinds.insert(kind).inserted {
                logger.warning(
                    "skipping unknown event kind (newer recording?)",
                    metadata: ["kind": "\(kind)", "location": "\(location)"]
                )
            }
            return nil
        }
        for key in object.members.lazy.map(\.key) where !Self.commonKeys.contains(key) && !known.contains(key) {
            if warnedKeys.insert("\(kind).\(key)").inserted {
                logger.warning(
                    "ignoring unknown key (newer recording?)",
                    metadata: ["key": "\(key)", "kind": "\(kind)", "location": "\(location)"]
                )
            }
        }
        guard let t = object["t"]?.doubleValue, t.isFinite else {
            throw LineError(message: "\"t\" must be a number of seconds")
        }
        guard let device = object["device"]?.stringValue, !device.isEmpty else {
            throw LineError(message: "missing \"device\"")
        }
        let time = header.recordedAt.addingTimeInterval(t)
        guard Timestamp.isSupported(time) else {
            throw LineError(
                message: "\"t\" \(t) puts the event outside the supported range "
                    + "\(Timestamp.supportedRangeDescription)"
            )
        }
        let eventKind: TransportEvent.Kind
        switch kind {
        case "advertisement":
            var advertisement = Advertisement()
            if let name = object["name"] {
                guard let name = name.stringValue else { throw LineError(message: "\"name\" must be a string") }
                advertisement.name = name
            }
            if let rssi = object["rssi"] {
                guard case .int(let rssi) = rssi else { throw LineError(message: "\"rssi\" must be an integer") }
                advertisement.rssi = rssi
            }
            if let uuids = object["serviceUUIDs"] {
                guard let array = uuids.arrayValue else {
                    throw LineError(message: "\"serviceUUIDs\" must be an array")
                }
                advertisement.serviceUUIDs = try array.map { value throws(LineError) in
                    try uuid(value, field: "serviceUUIDs")
                }
            }
            if let data = object["serviceData"] {
                guard let map = data.objectValue else { throw LineError(message: "\"serviceData\" must be an object") }
                for member in map.members {
                    let key = try uuid(.string(member.key), field: "serviceData")
                    advertisement.serviceData[key] = try bytes(member.value, field: "serviceData.\(member.key)")
                }
            }
            if let data = object["manufacturerData"] {
                guard let map = data.objectValue else {
                    throw LineError(message: "\"manufacturerData\" must be an object")
                }
                for member in map.members {
                    var digits = Substring(member.key)
                    if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
                    guard let company = UInt16(digits, radix: 16) else {
                        throw LineError(
                            message: "manufacturerData key '\(member.key)' is not a 16-bit company id in hex"
                        )
                    }
                    advertisement.manufacturerData[company] = try bytes(
                        member.value,
                        field: "manufacturerData.\(member.key)"
                    )
                }
            }
            eventKind = .advertisement(advertisement)
        case "connected":
            eventKind = .connected
        case "services":
            guard let map = object["services"]?.objectValue else {
                throw LineError(message: "\"services\" must be an object of service → [characteristic]")
            }
            var services: [BluetoothUUID: [BluetoothUUID]] = [:]
            for member in map.members {
                let service = try uuid(.string(member.key), field: "services")
                guard let array = member.value.arrayValue else {
                    throw LineError(message: "services.\(member.key) must be an array of characteristic UUIDs")
                }
                services[service] = try array.map { value throws(LineError) in
                    try uuid(value, field: "services.\(member.key)")
                }
            }
            eventKind = .servicesDiscovered(services)
        case "read", "notification", "indication":
            guard let characteristic = object["characteristic"] else {
                throw LineError(message: "missing \"characteristic\"")
            }
            let delivery = CharacteristicValue.Delivery(rawValue: kind)!
            guard let valueText = object["value"] else { throw LineError(message: "missing \"value\"") }
            eventKind = .value(
                CharacteristicValue(
                    characteristic: try uuid(characteristic, field: "characteristic"),
                    bytes: try bytes(valueText, field: "value"),
                    delivery: delivery
                )
            )
        case "write":
            guard let characteristic = object["characteristic"] else {
                throw LineError(message: "missing \"characteristic\"")
            }
            guard let valueText = object["value"] else { throw LineError(message: "missing \"value\"") }
            var withResponse = true
            if let response = object["response"] {
                guard case .bool(let flag) = response else {
                    throw LineError(message: "\"response\" must be true (write request) or false (write command)")
                }
                withResponse = flag
            }
            eventKind = .written(
                CharacteristicWrite(
                    characteristic: try uuid(characteristic, field: "characteristic"),
                    bytes: try bytes(valueText, field: "value"),
                    withResponse: withResponse
                )
            )
        case "disconnected":
            eventKind = .disconnected(reason: object["reason"]?.stringValue ?? "unknown")
        default:  // "error"
            eventKind = .error(message: object["message"]?.stringValue ?? "")
        }
        return RecordedEvent(
            event: TransportEvent(time: time, device: device, kind: eventKind),
            t: t,
            location: location,
            note: object["note"]?.stringValue
        )
    }

    private func uuid(_ value: JSONValue, field: String) throws(LineError) -> BluetoothUUID {
        guard case .string(let text) = value else { throw LineError(message: "\(field): expected a UUID string") }
        if let cached = uuidCache[text] { return cached }
        guard let uuid = BluetoothUUID(text) else {
            throw LineError(message: "\(field): '\(text)' is not a Bluetooth UUID (16-bit or 128-bit)")
        }
        if uuidCache.count < 256 { uuidCache[text] = uuid }
        return uuid
    }

    private func bytes(_ value: JSONValue, field: String) throws(LineError) -> [UInt8] {
        guard case .string(let text) = value else { throw LineError(message: "\(field): expected a hex string") }
        do {
            return try Hex.bytes(text)
        } catch {
            throw LineError(message: "\(field): \(error.description)")
        }
    }
}
