/// A problem with a value of a JSON document, named by its path: `characteristics[2].uuid: expected a string`.
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the offending value is (the root for the whole document).
    public var path: JSONPath
    public var message: String

    public init(path: JSONPath, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isRoot ? message : "\(path): \(message)" }
}

/// A JSON value together with its path, with typed access whose errors name that path. The one reader under
/// device profiles, plan files and recordings' headers.
public struct JSONReader: Sendable {
    public let value: JSONValue
    public let path: JSONPath

    public init(_ value: JSONValue, path: JSONPath = JSONPath()) {
        self.value = value
        self.path = path
    }

    /// An error about this value.
    public func error(_ message: String) -> JSONReadError {
        JSONReadError(path: path, message: message)
    }

    /// The value's kind for messages: `a number`, `the string "kg"`, `an object`.
    public var kind: String { value.kindDescription }

    /// - Throws: ``JSONReadError`` unless the value is a string.
    public func string() throws(JSONReadError) -> String {
        guard case .string(let text) = value else { throw error("expected a string, got \(kind)") }
        return text
    }

    /// - Throws: ``JSONReadError`` unless the value is `true` or `false`.
    public func bool() throws(JSONReadError) -> Bool {
        guard case .bool(let flag) = value else { throw error("expected true or false, got \(kind)") }
        return flag
    }

    /// A finite number (integers included).
    public func number() throws(JSONReadError) -> Double {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number) where number.isFinite: return number
        default: throw error("expected a number, got \(kind)")
        }
    }

    /// A whole number (`3` or `3.0`).
    public func integer() throws(JSONReadError) -> Int {
        switch value {
        case .int(let number): return number
        case .double(let number) where number == number.rounded() && abs(number) < 1e15: return Int(number)
        default: throw error("expected a whole number, got \(kind)")
        }
    }

    /// A whole number in `range`: one outside it (`9223372036854775807`, `1e19`) is refused here, before any
    /// arithmetic on it can overflow.
    /// - Throws: ``JSONReadError`` `… is out of range (low…high)`.
    public func integer(in range: ClosedRange<Int>) throws(JSONReadError) -> Int {
        if case .double(let number) = value, number == number.rounded(), number.isFinite, abs(number) >= 1e15 {
            throw error("\(number) is out of range (\(range.lowerBound)…\(range.upperBound))")
        }
        let number = try integer()
        guard range.contains(number) else {
            throw error("\(number) is out of range (\(range.lowerBound)…\(range.upperBound))")
        }
        return number
    }

    /// A finite number whose magnitude is at most `limit` (a scale of 1e308 would make values infinite).
    /// - Throws: ``JSONReadError`` `… is out of range (-limit…limit)`.
    public func number(magnitudeAtMost limit: Double) throws(JSONReadError) -> Double {
        let number = try number()
        guard abs(number) <= limit else { throw error("\(number) is out of range (-\(limit)…\(limit))") }
        return number
    }

    /// An array of whole numbers, as a set (a field's `absent` values).
    public func integers() throws(JSONReadError) -> Set<Int> {
        var values: Set<Int> = []
        for element in try array() { values.insert(try element.integer()) }
        return values
    }

    /// The elements, each with its path.
    public func array() throws(JSONReadError) -> [JSONReader] {
        guard case .array(let values) = value else { throw error("expected an array, got \(kind)") }
        return values.enumerated().map { JSONReader($0.element, path: path.appending(index: $0.offset)) }
    }

    /// The object's members.
    /// - Parameters:
    ///   - allowed: the known keys; any other key is an error (nil: any key).
    ///   - ignoringPrefix: keys starting with it are always allowed (comments such as `_note`).
    public func object(
        allowing allowed: [String]? = nil,
        ignoringPrefix: String? = nil
    ) throws(JSONReadError)
        -> JSONObjectReader
    {
        guard case .object(let object) = value else { throw error("expected an object, got \(kind)") }
        if let allowed {
            for key in object.keys where !allowed.contains(key) {
                if let ignoringPrefix, key.hasPrefix(ignoringPrefix) { continue }
                throw JSONReadError(
                    path: path.appending(key),
                    message: "unknown key \"\(key)\" (expected one of: \(allowed.joined(separator: ", ")))"
                )
            }
        }
        return JSONObjectReader(object: object, path: path)
    }
}

/// The members of a JSON object, each read with its path.
public struct JSONObjectReader: Sendable {
    public let object: JSONObject
    public let path: JSONPath

    public init(object: JSONObject, path: JSONPath) {
        self.object = object
        self.path = path
    }

    /// The member `key`; nil when it is missing or `null`.
    public subscript(key: String) -> JSONReader? {
        guard let value = object[key], value != .null else { return nil }
        return JSONReader(value, path: path.appending(key))
    }

    /// The member `key`.
    /// - Throws: ``JSONReadError`` `missing required key` when it is missing or `null`.
    public func required(_ key: String) throws(JSONReadError) -> JSONReader {
        guard let member = self[key] else {
            throw JSONReadError(path: path.appending(key), message: "missing required key \"\(key)\"")
        }
        return member
    }

    /// An error about the member `key`.
    public func error(_ key: String, _ message: String) -> JSONReadError {
        JSONReadError(path: path.appending(key), message: message)
    }

    public var keys: [String] { object.keys }
}

extension JSONValue {
    /// The value's kind for messages: `null`, `a boolean`, `a number`, `the string "kg"`, `an array`,
    /// `an object`.
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string(let text): "the string \"\(text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
