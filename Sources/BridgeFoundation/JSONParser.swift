extension JSONValue {
    /// Why a JSON text could not be read: where (byte offset, line and column) and what is wrong.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Byte offset of the problem, counted from 0.
        public var offset: Int
        /// Line of the problem, counted from 1.
        public var line: Int
        /// Column of the problem in characters (Unicode scalars), counted from 1.
        public var column: Int
        public var message: String

        public init(offset: Int, line: Int, column: Int, message: String) {
            self.offset = offset
            self.line = line
            self.column = column
            self.message = message
        }

        /// `invalid JSON at column 12: …` for one-line texts (recording lines), with the line otherwise.
        public var description: String {
            line == 1
                ? "invalid JSON at column \(column): \(message)"
                : "invalid JSON at line \(line), column \(column): \(message)"
        }
    }

    /// How strict the parser is.
    public struct ParseOptions: Sendable, Hashable {
        /// Refuse an object that names a key twice (otherwise the last value wins).
        public var rejectsDuplicateKeys: Bool
        /// Arrays and objects nested deeper than this are refused.
        public var maximumDepth: Int

        public init(rejectsDuplicateKeys: Bool = false, maximumDepth: Int = 256) {
            self.rejectsDuplicateKeys = rejectsDuplicateKeys
            self.maximumDepth = maximumDepth
        }

        /// Files people write by hand (plans, device profiles): duplicate keys are mistakes.
        public static let strict = ParseOptions(rejectsDuplicateKeys: true, maximumDepth: 64)
    }

    /// Parses one JSON text (RFC 8259). Object members keep their order; integers that fit in `Int` become
    /// ``JSONValue/int(_:)``, other numbers ``JSONValue/double(_:)``. A leading UTF-8 byte-order mark is skipped.
    /// - Throws: ``ParseError`` with the position of the first problem.
    public static func parse(_ text: String, options: ParseOptions = ParseOptions()) throws(ParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(ParseError) -> JSONValue in try parse(utf8: buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses one JSON text from UTF-8 bytes.
    public static func parse(_ bytes: [UInt8], options: ParseOptions = ParseOptions()) throws(ParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ParseError) -> JSONValue in try parse(utf8: buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses one JSON text from UTF-8 bytes.
    public static func parse(
        utf8 buffer: UnsafeBufferPointer<UInt8>,
        options: ParseOptions = ParseOptions()
    ) throws(ParseError) -> JSONValue {
        var parser = JSONParser(buffer, options: options)
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.error("unexpected text after the value") }
        return value
    }
}

/// The one JSON reader: a recursive-descent parser over UTF-8 bytes, used for recordings, device profiles and
/// plans.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let options: JSONValue.ParseOptions
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, options: JSONValue.ParseOptions) {
        self.bytes = bytes
        self.options = options
    }

    /// An error at the current position; the line and column are counted only now, when something is wrong.
    func error(_ message: String) -> JSONValue.ParseError {
        error(message, at: index)
    }

    func error(_ message: String, at offset: Int) -> JSONValue.ParseError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONValue.ParseError(offset: offset, line: line, column: column, message: message)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth < options.maximumDepth else {
            throw error("nesting deeper than \(options.maximumDepth) levels")
        }
        guard index < bytes.count else { throw error("unexpected end of text, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth))
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))', expected a value")
        }
    }

    mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("expected '\(word)'") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("expected '\(word)'")
        }
        index += count
        return value
    }

    mutating func parseObject(depth: Int) throws(JSONValue.ParseError) -> JSONObject {
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] != UInt8(ascii: "}") { object.reserveCapacity(8) }
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return object
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key string") }
            let keyStart = index
            let key = try parseString()
            if options.rejectsDuplicateKeys, object[key] != nil {
                throw error("duplicate key \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            object[key] = value
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of text, expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return object
        }
    }

    mutating func parseArray(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of text, expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(values)
        }
    }
    mutating func parseString() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'")
                }
            default:
                if byte < 0x20 { throw error("control character in string") }
                utf8.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ parser: inout JSONParser) -> Int {
            let begin = parser.index
            while parser.index < parser.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
            {
                parser.index += 1
            }
            return parser.index - begin
        }
        guard digits(&self) > 0 else { throw error("expected a digit") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int(text) { return .int(value) }
        guard let value = Double(text) else {
            index = start
            throw error("invalid number")
        }
        return .double(value)
    }
}
