import BridgeCore
public import BridgeFoundation
public import DeviceSessions
import GATTDecoding

extension SessionScript {
    /// Reads a profile's `session` object (format in `Devices/README.md`).
    /// - Parameters:
    ///   - reader: the `session` member.
    ///   - characteristics: the profile's characteristics; a step that subscribes to or reads a characteristic
    ///     must find it there (its values go through the pipeline, which decodes them by the profile).
    /// - Throws: ``DeviceProfileError`` naming the field.
    public init(
        profileJSON reader: JSONReader,
        characteristics: [DeviceProfile.Characteristic]
    )
        throws(DeviceProfileError)
    {
        self.init()
        do throws(JSONReadError) {
            let object = try reader.object(
                allowing: ["steps", "captures", "persist", "persistPer", "progress"],
                ignoringPrefix: "_"
            )
            var parser = SessionScriptParser(known: Set(characteristics.map(\.uuid)))
            controlPoints = characteristics.compactMap { characteristic in
                guard case .controlPoint(let message) = characteristic.reading else { return nil }
                return ControlPoint(characteristic: characteristic.uuid, message: message)
            }
            steps = try parser.steps(object.required("steps"))
            captures = []
            for entry in try object["captures"]?.array() ?? [] {
                let capture = try entry.object(
                    allowing: ["characteristic", "variable", "at", "keep", "when"],
                    ignoringPrefix: "_"
                )
                let keepText = try capture["keep"]?.string() ?? "last"
                guard let keep = SessionCapture.Keep(rawValue: keepText) else {
                    throw capture.error("keep", "'\(keepText)' is not last or max")
                }
                let uuid = try parser.uuid(capture.required("characteristic"))
                let at = try capture.required("at")
                let spec = try at.string()
                let variable = try capture.required("variable").string()
                captures.append(
                    CharacteristicCapture(
                        characteristic: uuid,
                        capture: try parser.wrap(at) { () throws(SessionScriptError) in
                            try SessionCapture(variable: variable, spec: spec, keep: keep)
                        },
                        when: try Self.valuePattern(capture["when"])
                    )
                )
            }
            if let progressReader = object["progress"] {
                let members = try progressReader.object(allowing: ["total", "count", "when"], ignoringPrefix: "_")
                let total = try members.required("total")
                let name = try total.string()
                guard SessionCondition(definedTest: name) != nil else {
                    throw total.error("'\(name)' is not a variable name")
                }
                progress = Progress(
                    total: name,
                    characteristic: try parser.uuid(members.required("count")),
                    when: try Self.valuePattern(members["when"])
                )
            }
            persist = []
            for entry in try object["persist"]?.array() ?? [] {
                let name = try entry.string()
                guard SessionCondition(definedTest: name) != nil else {
                    throw entry.error("'\(name)' is not a variable name")
                }
                persist.append(name)
            }
            if let perReader = object["persistPer"] {
                let name = try perReader.string()
                guard SessionCondition(definedTest: name) != nil else {
                    throw perReader.error("'\(name)' is not a variable name")
                }
                persistPer = name
            }
        } catch {
            throw DeviceProfileError(field: error.path.description, message: error.message)
        }
    }

    /// A capture's or progress's `when`: an object with a ``ValuePattern``'s keys; every value when absent.
    private static func valuePattern(_ reader: JSONReader?) throws(JSONReadError) -> ValuePattern {
        guard let reader else { return ValuePattern() }
        return try ValuePattern(members: reader.object(allowing: ValuePattern.keys, ignoringPrefix: "_"))
    }
}

extension SessionCondition {
    /// The `defined` test for a valid variable name, nil for anything else.
    init?(definedTest name: String) {
        guard let condition = try? SessionCondition(name), case .defined = condition.test else { return nil }
        self = condition
    }
}

/// Reads session steps, each an object with one verb key (`subscribe`, `read`, `write`, `await`, `delay`,
/// `repeat`, `if`, `set`, `eufyHandshake`).
struct SessionScriptParser {
    let known: Set<BluetoothUUID>

    func wrap<T>(_ at: JSONReader, _ body: () throws(SessionScriptError) -> T) throws(JSONReadError) -> T {
        do {
            return try body()
        } catch {
            throw at.error(error.description)
        }
    }

    func uuid(_ reader: JSONReader) throws(JSONReadError) -> BluetoothUUID {
        let text = try reader.string()
        guard let uuid = BluetoothUUID(text) else { throw reader.error("'\(text)' is not a Bluetooth UUID") }
        return uuid
    }

    func listed(_ reader: JSONReader) throws(JSONReadError) -> BluetoothUUID {
        let uuid = try uuid(reader)
        guard known.contains(uuid) else {
            throw reader.error("\(uuid) is not in the profile's characteristics (its values need a decoder there)")
        }
        return uuid
    }

    func seconds(_ reader: JSONReader?, default fallback: Double?) throws(JSONReadError) -> Double? {
        guard let reader else { return fallback }
        let value = try reader.number()
        guard value >= 0, value <= 86_400 else { throw reader.error("expected 0…86400 seconds") }
        return value
    }

    func captures(_ reader: JSONReader?) throws(JSONReadError) -> [SessionCapture] {
        guard let reader else { return [] }
        let object = try reader.object()
        var captures: [SessionCapture] = []
        for key in object.keys.sorted() {
            let spec = try object.required(key)
            let text = try spec.string()
            captures.append(
                try wrap(spec) { () throws(SessionScriptError) in try SessionCapture(variable: key, spec: text) }
            )
        }
        return captures
    }

    func pattern(_ reader: JSONReader?) throws(JSONReadError) -> BytePattern {
        guard let reader else { return BytePattern.any }
        let text = try reader.string()
        return try wrap(reader) { () throws(SessionScriptError) in try BytePattern(text) }
    }

    mutating func steps(_ reader: JSONReader) throws(JSONReadError) -> [SessionStep] {
        var steps: [SessionStep] = []
        for entry in try reader.array() { steps.append(try step(entry)) }
        return steps
    }

    static let verbs = ["subscribe", "read", "write", "await", "delay", "repeat", "if", "set", "eufyHandshake"]

    mutating func step(_ reader: JSONReader) throws(JSONReadError) -> SessionStep {
        let object = try reader.object()
        let verbs = Self.verbs.filter { object[$0] != nil }
        guard verbs.count == 1, let verb = verbs.first else {
            throw reader.error("a step has exactly one of \(Self.verbs.joined(separator: ", "))")
        }
        func allow(_ keys: [String]) throws(JSONReadError) {
            _ = try reader.object(allowing: [verb] + keys, ignoringPrefix: "_")
        }
        let main = try object.required(verb)
        switch verb {
        case "subscribe":
            try allow([])
            return .subscribe(try listed(main))
        case "read":
            try allow(["descriptor", "capture", "optional"])
            return .read(
                SessionStep.Read(
                    characteristic: try listed(main),
                    descriptor: try object["descriptor"].map { reader throws(JSONReadError) in try uuid(reader) },
                    capture: try captures(object["capture"]),
                    optional: try object["optional"]?.bool() ?? false
                )
            )
        case "write":
            try allow(["value", "response"])
            let value = try object.required("value")
            let text = try value.string()
            return .write(
                SessionStep.Write(
                    characteristic: try uuid(main),
                    value: try wrap(value) { () throws(SessionScriptError) in try ByteTemplate(text) },
                    withResponse: try object["response"]?.bool() ?? true
                )
            )
        case "await":
            try allow(["match", "timeout", "capture", "optional"])
            return .await(
                SessionStep.Await(
                    characteristic: try uuid(main),
                    pattern: try pattern(object["match"]),
                    timeout: try seconds(object["timeout"], default: 30) ?? 30,
                    capture: try captures(object["capture"]),
                    optional: try object["optional"]?.bool() ?? false
                )
            )
        case "eufyHandshake":
            try allow([])
            let members = try main.object(allowing: ["write", "answers", "timeout", "gap"], ignoringPrefix: "_")
            return .eufyHandshake(
                EufyHandshake(
                    write: try uuid(members.required("write")),
                    answers: try listed(members.required("answers")),
                    timeout: try seconds(members["timeout"], default: 10) ?? 10,
                    gap: try seconds(members["gap"], default: 1) ?? 1
                )
            )
        case "delay":
            try allow([])
            return .delay(try seconds(main, default: nil) ?? 0)
        case "repeat":
            try allow(["every", "until", "timeout"])
            let until = try object.required("until").object(allowing: ["characteristic", "match"], ignoringPrefix: "_")
            return .repeatUntil(
                SessionStep.Repeat(
                    steps: try steps(main),
                    every: try seconds(object.required("every"), default: nil) ?? 1,
                    until: SessionStep.ValueMatch(
                        characteristic: try uuid(until.required("characteristic")),
                        pattern: try pattern(until["match"])
                    ),
                    timeout: try seconds(object["timeout"], default: nil)
                )
            )
        case "if":
            try allow(["then", "else"])
            let text = try main.string()
            let condition = try wrap(main) { () throws(SessionScriptError) in try SessionCondition(text) }
            return .branch(
                condition,
                then: try steps(object.required("then")),
                else: try object["else"].map { reader throws(JSONReadError) in try steps(reader) } ?? []
            )
        default:
            try allow([])
            var assignments: [String: SessionStep.Assignment] = [:]
            let members = try main.object()
            for key in members.keys {
                guard SessionCondition(definedTest: key) != nil else {
                    throw members.error(key, "'\(key)' is not a variable name")
                }
                switch members.object[key] {
                case .null, nil: assignments[key] = .remove
                case .int(let number): assignments[key] = .value(.integer(number))
                case .string(let name) where SessionCondition(definedTest: name) != nil:
                    assignments[key] = .variable(name)
                default:
                    throw members.error(key, "expected a whole number, a variable name or null")
                }
            }
            return .set(assignments)
        }
    }
}
