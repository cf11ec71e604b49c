import BridgeFoundation
public import Foundation
import GATTDecoding

/// Replaces device addresses and names in a recording, consistently (the same address always becomes the
/// same replacement), so a session can be attached to a bug report.
///
/// Addresses become locally administered `02:00:00:00:XX:XX` in order of first appearance, wherever they
/// occur (also in notes and in lines that are not valid JSON). Advertised names become `Device 1`, `Device 2`, …
/// unless names are kept; the header's `host` becomes `redacted`. Payloads, times and UUIDs are untouched.
public struct RecordingRedactor {
    public var keepNames: Bool
    private(set) var addresses: [String: String] = [:]
    private(set) var names: [String: String] = [:]

    public init(keepNames: Bool = false) {
        self.keepNames = keepNames
    }

    /// What a redaction did.
    public struct Report: Sendable, Equatable {
        public var lines: Int
        public var addresses: Int
        public var names: Int
        /// Lines that were not valid JSON: copied with only their addresses replaced.
        public var unparsedLines: [Int]
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

    private mutating func redact(
        input: String,
        emit: (Data) throws(RecordingError) -> Void
    ) throws(RecordingError) -> Report {
        guard let lines = LineReader(path: input) else {
            throw RecordingError(
                code: .cannotOpen,
                message: "cannot open: \(LineReader.lastErrorDescription)",
                location: RecordingLocation(file: input, line: 0)
            )
        }
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
        return report
    }

    /// Redacts one line of text.
    public mutating func redactLine(_ text: String) -> String {
        var report = Report(lines: 0, addresses: 0, names: 0, unparsedLines: [])
        var text = text
        return text.withUTF8 { redactLine($0, lineNumber: 0, report: &report) }
    }

    private mutating func redactLine(
        _ bytes: UnsafeBufferPointer<UInt8>,
        lineNumber: Int,
        report: inout Report
    ) -> String {
        report.lines += 1
        guard case .object(var object) = try? JSONValue.parse(utf8: bytes) else {
            if !bytes.isEmpty { report.unparsedLines.append(lineNumber) }
            return replaceAddresses(in: String(decoding: bytes, as: UTF8.self))
        }
        if object["format"] != nil, object["host"] != nil { object["host"] = .string("redacted") }
        if !keepNames, case .string(let name) = object["name"] {
            object["name"] = .string(replacement(forName: name))
        }
        return replaceAddresses(in: JSONValue.object(object).serialized())
    }

    private mutating func replacement(forName name: String) -> String {
        if let known = names[name] { return known }
        let replacement = "Device \(names.count + 1)"
        names[name] = replacement
        return replacement
    }

    private mutating func replacement(forAddress address: String) -> String {
        let key = address.uppercased()
        if let known = addresses[key] { return known }
        let number = addresses.count + 1
        let replacement = String(format: "02:00:00:00:%02X:%02X", (number >> 8) & 0xFF, number & 0xFF)
        addresses[key] = replacement
        return replacement
    }

    /// Replaces every `XX:XX:XX:XX:XX:XX` (hex, either case, `:` or `_` separated as BlueZ paths use).
    private mutating func replaceAddresses(in text: String) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 17 else { return text }
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
            guard separator == UInt8(ascii: ":") || separator == UInt8(ascii: "_") else { return false }
            for group in 0..<6 {
                let offset = start + group * 3
                guard isHex(utf8[offset]), isHex(utf8[offset + 1]) else { return false }
                if group < 5, utf8[offset + 2] != separator { return false }
            }
            return true
        }
        while index < utf8.count {
            if isAddress(at: index) {
                let separator = utf8[index + 2]
                let found = String(decoding: utf8[index..<index + 17], as: UTF8.self)
                var replacement = self.replacement(forAddress: found.replacingOccurrences(of: "_", with: ":"))
                if separator == UInt8(ascii: "_") { replacement = replacement.replacingOccurrences(of: ":", with: "_") }
                output.append(contentsOf: replacement.utf8)
                index += 17
            } else {
                output.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
