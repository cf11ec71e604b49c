import BridgeFoundation
public import Foundation
import GATTDecoding

/// Replaces device addresses and names in a recording, consistently (the same address always becomes the
/// same replacement), so a session can be attached to a bug report.
///
/// The file is read twice, line by line (memory stays flat): first to learn every advertised name and device
/// address, then to write. Addresses become locally administered `02:00:00:00:XX:XX` in order of first
/// appearance wherever they occur, in every spelling: `:`, `-` or `_` separated (BlueZ paths), in either case,
/// without separators (`C47C8D6A3E10`, for addresses the recording uses), and inside payload bytes (in either byte
/// order: some devices put their address in manufacturer data). Advertised names become `Device 1`, `Device 2`,
/// … unless names are kept — in the `name` field and wherever else they appear (notes, errors, disconnect
/// reasons, header values, unreadable lines) and as the value of the GATT Device Name (2A00) the device was read
/// for. Header keys that name the machine, the person or the capture file (`host`, `hostname`, `user`,
/// `username`, `login`, `capture`) become `redacted`. Payloads are otherwise kept (a replay must decode them);
/// with ``redactDeviceInformation`` the identifying Device Information values (Serial Number String, System ID)
/// are replaced too, and the serial numbers wherever else their text appears (notes, errors).
public struct RecordingRedactor {
    public var keepNames: Bool
    /// Also replace Serial Number String (2A25) and System ID (2A23) values, which identify one device.
    public var redactDeviceInformation: Bool
    private(set) var addresses: [String: String] = [:]
    private(set) var names: [String: String] = [:]
    /// Known addresses without separators (`C47C8D6A3E10`) → the replacement, same spelling.
    private var bareAddresses: [String: String] = [:]
    /// Known addresses as bytes (both orders) → the replacement's bytes in the same order.
    private var addressBytes: [[UInt8]: [UInt8]] = [:]
    /// Names long enough to replace inside free text (≥ 3 characters), longest first.
    private var textNames: [String] = []
    private var serials: [String: String] = [:]
    /// Serial numbers as text (≥ 3 characters) → their replacement, for free text.
    private var textSerials: [String: String] = [:]

    static let identifyingHeaderKeys: Set<String> = ["host", "hostname", "user", "username", "login", "capture"]
    static let minimumTextNameLength = 3

    public init(keepNames: Bool = false, redactDeviceInformation: Bool = false) {
        self.keepNames = keepNames
        self.redactDeviceInformation = redactDeviceInformation
    }

    /// What a redaction did.
    public struct Report: Sendable, Equatable {
        public var lines: Int
        public var addresses: Int
        public var names: Int
        /// Lines that were not valid JSON: copied with only their addresses and known names replaced.
        public var unparsedLines: [Int]
        /// Device Information values replaced (with ``RecordingRedactor/redactDeviceInformation``).
        public var deviceInformationValues = 0
        /// Distinct names replaced (by their original text), to warn about profiles that match by name.
        public var redactedNames: [String] = []
    }

    /// Redacts `input` into `output` line by line (memory stays flat). The result goes to a temporary file that
    /// replaces `output` only when the whole input was redacted, so a failure leaves an existing `output` as it
    /// was; `output` may not be `input` (``SafeOutputFile``).
    /// - Throws: ``RecordingError`` when either file cannot be opened or written, or when they are the same file.
    public mutating func redact(input: String, output: String, mode: mode_t = 0o600) throws(RecordingError) -> Report {
        let file: SafeOutputFile
        do {
            file = try SafeOutputFile(path: output, mode: mode, inputs: [input])
        } catch {
            throw RecordingError(
                code: .cannotWrite,
                message: error.message,
                location: RecordingLocation(file: output, line: 0)
            )
        }
        let report = try redact(input: input) { (data) throws(RecordingError) in
            do throws(OutputFileError) {
                try file.write(data)
            } catch {
                throw RecordingError(
                    code: .cannotWrite,
                    message: error.message,
                    location: RecordingLocation(file: output, line: 0)
                )
            }
        }
        do {
            try file.commit()
        } catch {
            throw RecordingError(
                code: .cannotWrite,
                message: error.message,
                location: RecordingLocation(file: output, line: 0)
            )
        }
        return report
    }

    /// Redacts `input` line by line into an open file handle (standard output, for example).
    /// - Throws: ``RecordingError`` when the input cannot be opened.
    public mutating func redact(input: String, to handle: FileHandle) throws(RecordingError) -> Report {
        try redact(input: input) { (data) throws(RecordingError) in
            do {
                try handle.write(contentsOf: data)
            } catch {
                throw RecordingError(
                    code: .cannotWrite,
                    message: "cannot write: \(error.localizedDescription)",
                    location: RecordingLocation(file: "standard output", line: 0)
                )
            }
        }
    }

    private static func open(_ input: String) throws(RecordingError) -> LineReader {
        guard let lines = LineReader(path: input) else {
            throw RecordingError(
                code: .cannotOpen,
                message: "cannot open: \(LineReader.lastErrorDescription)",
                location: RecordingLocation(file: input, line: 0)
            )
        }
        return lines
    }

    /// First pass: every advertised name and every address, so that a note before the advertisement that names
    /// the device is redacted too.
    private mutating func learn(_ input: String) throws(RecordingError) {
        let lines = try Self.open(input)
        while lines.nextLine({ bytes -> Bool in
            if case .object(let object) = try? JSONValue.parse(utf8: bytes) {
                if !keepNames, case .string(let name) = object["name"], object["kind"]?.stringValue == "advertisement" {
                    _ = replacement(forName: name)
                }
                if case .string(let device) = object["device"] { _ = replaceAddresses(in: device) }
                // The Device Name read over GATT is the advertised name by another way; a serial read from the
                // Device Information may be typed into a note.
                if let (characteristic, text) = Self.readText(object) {
                    if !keepNames, characteristic == Self.deviceName, !text.isEmpty { _ = replacement(forName: text) }
                    if redactDeviceInformation, characteristic == Self.serialNumber,
                        case .string(let value) = object["value"]
                    {
                        let replacement = serialReplacement(for: value)
                        if text.count >= Self.minimumTextNameLength { textSerials[text] = replacement }
                    }
                }
            }
            _ = replaceAddresses(in: String(decoding: bytes, as: UTF8.self))
            return true
        }) != nil {}
    }

    private mutating func redact(
        input: String,
        emit: (Data) throws(RecordingError) -> Void
    ) throws(RecordingError) -> Report {
        try learn(input)
        let lines = try Self.open(input)
        var report = Report(lines: 0, addresses: 0, names: 0, unparsedLines: [])
        var pending = Data()
        while let line = lines.nextLine({ bytes in redactLine(bytes, lineNumber: lines.lineNumber, report: &report) }) {
            pending.append(contentsOf: line.utf8)
            pending.append(0x0A)
            if pending.count > 1 << 16 {
                try emit(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        try emit(pending)
        report.addresses = addresses.count
        report.names = names.count
        report.redactedNames = names.keys.sorted()
        return report
    }

    /// Redacts one line of text (names and addresses are learnt from this line only).
    public mutating func redactLine(_ text: String) -> String {
        var report = Report(lines: 0, addresses: 0, names: 0, unparsedLines: [])
        var text = text
        if !keepNames, case .object(let object) = try? JSONValue.parse(text),
            case .string(let name) = object["name"]
        {
            _ = replacement(forName: name)
        }
        return text.withUTF8 { redactLine($0, lineNumber: 0, report: &report) }
    }

    private static let hexFields: Set<String> = ["value", "serviceData", "manufacturerData"]
    static let deviceName = BluetoothUUID(0x2A00)
    static let serialNumber = BluetoothUUID(0x2A25)

    /// The characteristic of a value line and its value as UTF-8 text (up to a terminating NUL).
    static func readText(_ object: JSONObject) -> (BluetoothUUID, String)? {
        guard case .string(let value) = object["value"],
            let characteristic = object["characteristic"]?.stringValue.flatMap(BluetoothUUID.init),
            let bytes = try? Hex.bytes(value)
        else { return nil }
        return (characteristic, String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
    }

    private mutating func redactLine(
        _ bytes: UnsafeBufferPointer<UInt8>,
        lineNumber: Int,
        report: inout Report
    ) -> String {
        report.lines += 1
        guard case .object(var object) = try? JSONValue.parse(utf8: bytes) else {
            if !bytes.isEmpty { report.unparsedLines.append(lineNumber) }
            return redactText(String(decoding: bytes, as: UTF8.self))
        }
        let isHeader = object["format"] != nil
        if isHeader {
            for key in object.keys where Self.identifyingHeaderKeys.contains(key.lowercased()) {
                object[key] = .string("redacted")
            }
            // Session variables are keyed by device address: the same replacement as everywhere else.
            if case .object(let devices) = object["sessionVariables"] {
                var renamed = JSONObject()
                for member in devices.members { renamed[replaceAddresses(in: member.key)] = member.value }
                object["sessionVariables"] = .object(renamed)
            }
        }
        if !keepNames, let (characteristic, text) = Self.readText(object), characteristic == Self.deviceName,
            let known = names[text]
        {
            object["value"] = .string(Hex.string(Array(known.utf8)))
        }
        if redactDeviceInformation, case .string(let value) = object["value"],
            let characteristic = object["characteristic"]?.stringValue.flatMap(BluetoothUUID.init)
        {
            if characteristic == BluetoothUUID(0x2A25) {
                object["value"] = .string(Hex.string(Array(serialReplacement(for: value).utf8)))
                report.deviceInformationValues += 1
            } else if characteristic == BluetoothUUID(0x2A23) {
                object["value"] = .string(Hex.string([UInt8](repeating: 0, count: 8)))
                report.deviceInformationValues += 1
            }
        }
        for key in object.keys {
            guard let value = object[key] else { continue }
            object[key] = redactValue(value, hex: Self.hexFields.contains(key), isName: key == "name")
        }
        return JSONValue.object(object).serialized()
    }

    private mutating func redactValue(_ value: JSONValue, hex: Bool, isName: Bool = false) -> JSONValue {
        switch value {
        case .string(let text):
            if hex { return .string(redactPayload(text)) }
            if isName, !keepNames, let known = names[text] { return .string(known) }
            return .string(redactText(text))
        case .array(let values):
            return .array(values.map { redactValue($0, hex: hex) })
        case .object(let object):
            var copy = object
            for key in object.keys {
                guard let member = object[key] else { continue }
                copy[key] = redactValue(member, hex: hex)  // keys of hex maps are UUIDs and company ids
            }
            return .object(copy)
        default:
            return value
        }
    }

    /// Free text: addresses in any spelling, then known names.
    private mutating func redactText(_ text: String) -> String {
        var result = replaceAddresses(in: text)
        for (serial, replacement) in textSerials where result.contains(serial) {
            result = result.replacingOccurrences(of: serial, with: replacement)
        }
        guard !keepNames else { return result }
        for name in textNames where result.contains(name) {
            result = result.replacingOccurrences(of: name, with: names[name]!)
        }
        return result
    }

    /// A hex payload with any known address inside it (either byte order) replaced by its replacement's bytes.
    private func redactPayload(_ text: String) -> String {
        guard !addressBytes.isEmpty, var bytes = try? Hex.bytes(text), bytes.count >= 6 else { return text }
        var changed = false
        var index = 0
        while index + 6 <= bytes.count {
            if let replacement = addressBytes[Array(bytes[index..<index + 6])] {
                bytes.replaceSubrange(index..<index + 6, with: replacement)
                changed = true
                index += 6
            } else {
                index += 1
            }
        }
        return changed ? Hex.string(bytes).lowercased() : text
    }

    private mutating func serialReplacement(for value: String) -> String {
        if let known = serials[value] { return known }
        let replacement = "SERIAL-\(serials.count + 1)"
        serials[value] = replacement
        return replacement
    }

    private mutating func replacement(forName name: String) -> String {
        if let known = names[name] { return known }
        let replacement = "Device \(names.count + 1)"
        names[name] = replacement
        if name.count >= Self.minimumTextNameLength {
            textNames.append(name)
            textNames.sort { $0.count > $1.count }
        }
        return replacement
    }

    private mutating func replacement(forAddress address: String) -> String {
        let key = address.uppercased()
        if let known = addresses[key] { return known }
        let number = addresses.count + 1
        let replacement = String(format: "02:00:00:00:%02X:%02X", (number >> 8) & 0xFF, number & 0xFF)
        addresses[key] = replacement
        let bare = key.replacingOccurrences(of: ":", with: "")
        let bareReplacement = replacement.replacingOccurrences(of: ":", with: "")
        bareAddresses[bare] = bareReplacement
        if let original = try? Hex.bytes(bare), let new = try? Hex.bytes(bareReplacement) {
            addressBytes[original] = new
            addressBytes[original.reversed()] = new.reversed()
        }
        return replacement
    }

    /// Replaces every `XX:XX:XX:XX:XX:XX` (hex, either case, `:`, `-` or `_` separated) and every known address
    /// written as 12 hex digits without separators.
    private mutating func replaceAddresses(in text: String) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 12 else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var index = 0
        func isHex(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
        }
        func isAddress(at start: Int) -> Bool {
            guard start + 17 <= utf8.count else { return false }
            if start > 0, isHex(utf8[start - 1]) { return false }
            if start + 17 < utf8.count, isHex(utf8[start + 17]) { return false }
            let separator = utf8[start + 2]
            guard separator == UInt8(ascii: ":") || separator == UInt8(ascii: "_") || separator == UInt8(ascii: "-")
            else { return false }
            for group in 0..<6 {
                let offset = start + group * 3
                guard isHex(utf8[offset]), isHex(utf8[offset + 1]) else { return false }
                if group < 5, utf8[offset + 2] != separator { return false }
            }
            return true
        }
        func bareAddress(at start: Int) -> String? {
            guard !bareAddresses.isEmpty, start + 12 <= utf8.count else { return nil }
            if start > 0, isHex(utf8[start - 1]) { return nil }
            if start + 12 < utf8.count, isHex(utf8[start + 12]) { return nil }
            for offset in start..<(start + 12) where !isHex(utf8[offset]) { return nil }
            return bareAddresses[String(decoding: utf8[start..<start + 12], as: UTF8.self).uppercased()]
        }
        while index < utf8.count {
            if isAddress(at: index) {
                let separator = utf8[index + 2]
                let found = String(decoding: utf8[index..<index + 17], as: UTF8.self)
                let normalised = found.replacingOccurrences(of: "_", with: ":").replacingOccurrences(of: "-", with: ":")
                var replacement = self.replacement(forAddress: normalised)
                if separator != UInt8(ascii: ":") {
                    replacement = replacement.replacingOccurrences(of: ":", with: String(UnicodeScalar(separator)))
                }
                output.append(contentsOf: replacement.utf8)
                index += 17
            } else if let replacement = bareAddress(at: index) {
                output.append(contentsOf: replacement.utf8)
                index += 12
            } else {
                output.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
