public import BridgeCore
import BridgeFoundation
public import Foundation
import GATTDecoding

/// Writes a recording: the header line, then one JSON line per transport event.
///
/// The lines go to a temporary file next to `path` (mode 0600) as they come, so a killed recorder leaves them in
/// `NAME.XXXXXX.partial`; ``close()`` makes it the file at `path`, and until then an existing file there is
/// untouched (``SafeOutputFile``). Not thread-safe on its own; ``RecordingTransport`` serialises access.
public final class RecordingWriter {
    public let path: String
    public let header: RecordingHeader
    private let output: SafeOutputFile
    /// Events written so far (the header not counted).
    public private(set) var eventCount = 0

    /// Starts a recording that will replace `path` when closed, and writes the header.
    /// - Parameters:
    ///   - inputs: files the command reads; `path` may not be one of them.
    ///   - mode: the new file's permissions (owner only by default: recordings hold health data).
    /// - Throws: ``RecordingError`` when the file cannot be created or written, or is one of `inputs`.
    public init(
        path: String,
        header: RecordingHeader,
        inputs: [String] = [],
        mode: mode_t = 0o600
    ) throws(RecordingError) {
        do {
            self.output = try SafeOutputFile(path: path, mode: mode, inputs: inputs)
        } catch {
            throw RecordingError(
                code: .cannotWrite,
                message: error.message,
                location: RecordingLocation(file: path, line: 0)
            )
        }
        self.path = path
        self.header = header
        try writeLine(Self.line(for: header))
    }

    /// Appends one event; its `t` is the event time minus `recordedAt`, to the millisecond. A download event is
    /// not written (``line(for:recordedAt:note:)``).
    public func write(_ event: TransportEvent, note: String? = nil) throws(RecordingError) {
        guard let line = Self.line(for: event, recordedAt: header.recordedAt, note: note) else { return }
        try writeLine(line)
        eventCount += 1
    }

    /// Finishes the recording: syncs it and puts it at `path` (replacing what was there).
    /// - Throws: ``RecordingError`` when it cannot be written; an existing file at `path` is then unchanged.
    public func close() throws(RecordingError) {
        do {
            try output.commit()
        } catch {
            throw RecordingError(
                code: .cannotWrite,
                message: error.message,
                location: RecordingLocation(file: path, line: 0)
            )
        }
    }

    /// Abandons the recording: nothing appears at `path`, and an existing file there is unchanged.
    public func discard() {
        output.discard()
    }

    private func writeLine(_ line: String) throws(RecordingError) {
        do {
            try output.write(line + "\n")
        } catch {
            throw RecordingError(
                code: .cannotWrite,
                message: error.message,
                location: RecordingLocation(file: path, line: 0)
            )
        }
    }

    // MARK: - Line formatting

    /// The header as one JSON line.
    public static func line(for header: RecordingHeader) -> String {
        let zone = header.timeZone ?? TimeZone(identifier: "UTC")!
        var object: JSONObject = [
            "format": .string(RecordingHeader.format),
            "version": .int(header.version),
            "recordedAt": .string(Timestamp.format(header.recordedAt, in: zone)),
        ]
        if let timeZone = header.timeZone { object["timeZone"] = .string(timeZone.identifier) }
        for member in header.extra.members { object[member.key] = member.value }
        return JSONValue.object(object).serialized()
    }

    /// One event as a JSON line; nil for a download event, which the session machine makes (a replay runs the
    /// session again and makes it again), so a recording holds only what crossed the radio.
    public static func line(for event: TransportEvent, recordedAt: Date, note: String? = nil) -> String? {
        let t = (event.time.timeIntervalSince(recordedAt) * 1000).rounded() / 1000
        var object: JSONObject = ["t": .double(t)]
        switch event.kind {
        case .advertisement(let advertisement):
            object["kind"] = .string("advertisement")
            object["device"] = .string(event.device)
            if let name = advertisement.name { object["name"] = .string(name) }
            if let rssi = advertisement.rssi { object["rssi"] = .int(rssi) }
            if !advertisement.serviceUUIDs.isEmpty {
                object["serviceUUIDs"] = .array(advertisement.serviceUUIDs.map { .string($0.description) })
            }
            if !advertisement.serviceData.isEmpty {
                var data = JSONObject()
                for key in advertisement.serviceData.keys.sorted() {
                    data[key.description] = .string(Hex.string(advertisement.serviceData[key]!))
                }
                object["serviceData"] = .object(data)
            }
            if !advertisement.manufacturerData.isEmpty {
                var data = JSONObject()
                for key in advertisement.manufacturerData.keys.sorted() {
                    data[companyKey(key)] = .string(Hex.string(advertisement.manufacturerData[key]!))
                }
                object["manufacturerData"] = .object(data)
            }
        case .connected:
            object["kind"] = .string("connected")
            object["device"] = .string(event.device)
        case .servicesDiscovered(let services):
            object["kind"] = .string("services")
            object["device"] = .string(event.device)
            var map = JSONObject()
            for service in services.keys.sorted() {
                map[service.description] = .array(services[service]!.map { .string($0.description) })
            }
            object["services"] = .object(map)
        case .value(let value):
            object["kind"] = .string(value.delivery.rawValue)
            object["device"] = .string(event.device)
            object["characteristic"] = .string(value.characteristic.description)
            object["value"] = .string(Hex.string(value.bytes))
        case .written(let write):
            object["kind"] = .string("write")
            object["device"] = .string(event.device)
            object["characteristic"] = .string(write.characteristic.description)
            object["value"] = .string(Hex.string(write.bytes))
            if !write.withResponse { object["response"] = .bool(false) }
        case .disconnected(let reason):
            object["kind"] = .string("disconnected")
            object["device"] = .string(event.device)
            object["reason"] = .string(reason)
        case .error(let message):
            object["kind"] = .string("error")
            object["device"] = .string(event.device)
            object["message"] = .string(message)
        case .download:
            return nil
        }
        if let note { object["note"] = .string(note) }
        return JSONValue.object(object).serialized()
    }

    static func companyKey(_ id: UInt16) -> String {
        let digits = String(id, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
