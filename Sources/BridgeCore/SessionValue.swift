/// The value of a session variable: a number (a sequence number, a user index) or bytes (a consent code
/// kept as the device expects it).
public enum SessionValue: Sendable, Hashable, CustomStringConvertible {
    case integer(Int)
    case bytes([UInt8])

    public var integer: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var description: String {
        switch self {
        case .integer(let value): "\(value)"
        case .bytes(let bytes): "0x" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        }
    }
}

/// A session's variables by name (`lastSequence`, `consentCode`, `userIndex`, …).
public typealias SessionVariables = [String: SessionValue]

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Where a device's persisted session variables live between sessions (the store's `deviceSessionVariable`
/// table in the bridge; a dictionary in tests).
public protocol SessionMemory: Sendable {
    /// The variables saved for a device under a profile (empty when none were).
    func variables(device: String, profile: String) async throws -> SessionVariables
    /// Saves the variables a finished session persists; a nil value removes the variable.
    func save(_ variables: [String: SessionValue?], device: String, profile: String) async throws
}

/// Session variables in memory only (tests, `replay` without a store).
public actor InMemorySessionMemory: SessionMemory {
    public private(set) var stored: [String: SessionVariables] = [:]

    public init(_ stored: [String: SessionVariables] = [:]) {
        self.stored = stored
    }

    static func key(_ device: String, _ profile: String) -> String { "\(device)|\(profile)" }

    public func variables(device: String, profile: String) async throws -> SessionVariables {
        stored[Self.key(device, profile)] ?? [:]
    }

    public func save(_ variables: [String: SessionValue?], device: String, profile: String) async throws {
        var current = stored[Self.key(device, profile)] ?? [:]
        for (name, value) in variables { current[name] = value }
        stored[Self.key(device, profile)] = current
    }

    /// The variables kept for a device under a profile.
    public func variables(_ device: String, _ profile: String) -> SessionVariables {
        stored[Self.key(device, profile)] ?? [:]
    }
}
