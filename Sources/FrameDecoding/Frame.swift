public import BridgeCore
public import BridgeFoundation
public import DeviceSessions
import Foundation
import GATTDecoding

/// One frame of a profile's frame language: which values it selects, the fields it reads, when a value is final,
/// and the samples it makes (documented in `Devices/README.md`, "Frames").
public struct Frame: Sendable, Hashable {
    public var name: String
    public var select: ValuePattern
    /// `select.when`: conditions on the decoded fields that must also hold for the frame to select a value.
    public var selectWhen: [SessionCondition] = []
    public var checksum: FrameChecksum?
    public var fields: [FrameField]
    /// When these do not all hold the value is intermediate (not stabilised, load removed).
    public var final: [SessionCondition] = []
    /// The field with the measurement time; without it the receive time is used.
    public var time: String?
    /// The field with the device's user slot (sample metadata `userID`, which routes samples to people).
    public var user: String?
    public var samples: [FrameSampleRule] = []
    public var merge: FrameMerge?

    public init(name: String, select: ValuePattern = ValuePattern(), fields: [FrameField] = []) {
        self.name = name
        self.select = select
        self.fields = fields
    }

    static let keys = ["name", "select", "checksum", "fields", "final", "time", "user", "samples", "merge"]

    /// Reads one FRAME object; field names used in conditions, samples, `time` and `user` must be the frame's
    /// own (a merged frame's fields are checked by ``FrameSet``).
    /// - Throws: ``JSONReadError`` at the offending member.
    public init(json reader: JSONReader) throws(JSONReadError) {
        let members = try reader.object(allowing: Self.keys, ignoringPrefix: "_")
        let nameReader = try members.required("name")
        name = try nameReader.string()
        guard Self.isFrameName(name) else { throw nameReader.error("a frame name is not empty") }
        select = ValuePattern()
        if let selectReader = members["select"] {
            let selectMembers = try selectReader.object(allowing: ValuePattern.keys + ["when"], ignoringPrefix: "_")
            select = try ValuePattern(members: selectMembers)
            selectWhen = try Self.conditions(selectMembers["when"])
        }
        checksum = try members["checksum"].map { reader throws(JSONReadError) in try FrameChecksum(json: reader) }
        fields = []
        if let fieldsReader = members["fields"] {
            for element in try fieldsReader.array() {
                let field = try FrameField(json: element)
                if fields.contains(where: { $0.name == field.name }) {
                    throw element.error("field \(field.name) is defined twice")
                }
                fields.append(field)
            }
        }
        final = try Self.conditions(members["final"])
        if let samplesReader = members["samples"] {
            for element in try samplesReader.array() { samples.append(try FrameSampleRule(json: element)) }
        }
        merge = try members["merge"].map { reader throws(JSONReadError) in try FrameMerge(json: reader) }
        let names = Set(fields.map(\.name))
        func known(_ name: String, _ reader: JSONReader) throws(JSONReadError) {
            guard names.contains(name) else {
                throw reader.error(
                    "no field '\(name)' in frame \(self.name) (fields: \(fields.map(\.name).joined(separator: ", ")))"
                )
            }
        }
        if let timeReader = members["time"] {
            let name = try timeReader.string()
            try known(name, timeReader)
            guard fields.first(where: { $0.name == name })?.type.isTime == true else {
                throw timeReader.error("field \(name) is not a time type (dateTime, epoch32le, bcdDateTime, …)")
            }
            time = name
        }
        if let userReader = members["user"] {
            let name = try userReader.string()
            try known(name, userReader)
            user = name
        }
        for (key, conditions) in [("select", selectWhen), ("final", final)] {
            for condition in conditions {
                for name in condition.variableNames { try known(name, members[key]!) }
            }
        }
        if let samplesReader = members["samples"] {
            for (index, element) in try samplesReader.array().enumerated() {
                let rule = samples[index]
                for reference in [rule.field] + (rule.unitField.map { [$0] } ?? []) where reference.frame == nil {
                    try known(reference.field, element)
                }
                for reference in [rule.field] + (rule.unitField.map { [$0] } ?? []) {
                    if let other = reference.frame, other != merge?.with {
                        throw element.error(
                            "'\(reference)' names frame \(other), but this frame merges with \(merge?.with ?? "none")"
                        )
                    }
                }
                for condition in rule.when {
                    for name in condition.variableNames {
                        if let reference = FrameFieldReference(name), let other = reference.frame {
                            guard other == merge?.with else {
                                throw element.error(
                                    "'\(name)' names frame \(other), but this frame merges with \(merge?.with ?? "none")"
                                )
                            }
                        } else {
                            try known(name, element)
                        }
                    }
                }
            }
        }
        if let by = merge?.by { try known(by, members["merge"]!) }
    }

    /// Letters, digits and `_`, not starting with a digit (field and frame names, as condition variables).
    public static func isName(_ text: String) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        return text.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "_") && $0.isASCII }
    }

    /// A frame name: any non-empty text (`FRAME.field` references split at the last dot).
    public static func isFrameName(_ text: String) -> Bool {
        !text.isEmpty
    }

    /// A condition or a list of conditions (all must hold).
    static func conditions(_ reader: JSONReader?) throws(JSONReadError) -> [SessionCondition] {
        guard let reader else { return [] }
        let elements: [JSONReader]
        if case .string = reader.value { elements = [reader] } else { elements = try reader.array() }
        var conditions: [SessionCondition] = []
        for element in elements {
            let text = try element.string()
            do {
                conditions.append(try SessionCondition(text))
            } catch {
                throw element.error(error.description)
            }
        }
        return conditions
    }

    /// Reads every field of a value this frame selected and decides whether it is final.
    /// - Throws: ``FrameDecodingError`` for a checksum mismatch or a field outside the value.
    public func decode(_ bytes: [UInt8]) throws(FrameDecodingError) -> DecodedFrame {
        if let checksum, let problem = checksum.problem(in: bytes) {
            throw FrameDecodingError(frame: name, message: problem)
        }
        var decoded: [DecodedField] = []
        decoded.reserveCapacity(fields.count)
        for field in fields { decoded.append(try field.read(bytes, frame: name)) }
        var frame = DecodedFrame(frame: name, fields: decoded, isFinal: true)
        let variables = frame.variables
        frame.isFinal = final.allSatisfy { $0.holdsForFields(variables) }
        return frame
    }

    /// The samples of a final decoded frame.
    /// - Parameters:
    ///   - merged: the frame named by ``merge`` when it came; samples using its fields are made only with it.
    ///   - notes: why a sample was not made (a field not measured), for the pipeline's warnings.
    public func appendSamples(
        of decoded: DecodedFrame,
        merged: DecodedFrame?,
        in context: consuming SampleContext,
        to output: inout [SampleDraft],
        notes: inout [String]
    ) {
        func lookup(_ reference: FrameFieldReference) -> DecodedField? {
            if let frame = reference.frame { return merged?.frame == frame ? merged?.field(reference.field) : nil }
            return decoded.field(reference.field)
        }
        if let user, let slot = decoded.field(user)?.raw {
            context.metadata["userID"] = slot == 0xFF ? "unknown" : String(slot)
        }
        var deviceTime: DateTime?
        if let time, let value = decoded.field(time)?.value {
            switch value {
            case .time(let wallClock): deviceTime = wallClock
            case .instant(let instant): deviceTime = DateTime(wallClockOf: instant, in: context.timeZone)
            default: break
            }
        }
        let start = context.start(for: deviceTime)
        var variables = decoded.variables
        if let merged {
            for (name, value) in merged.variables { variables["\(merged.frame).\(name)"] = value }
        }
        for rule in samples {
            guard rule.when.allSatisfy({ $0.holdsForFields(variables) }) else { continue }
            if rule.field.frame != nil, merged == nil { continue }  // the merged frame never came
            guard let field = lookup(rule.field) else { continue }
            var unit = rule.unit
            if let unitField = rule.unitField {
                guard let text = lookup(unitField)?.value?.text, let parsed = HealthUnit(parsing: text) else {
                    notes.append("\(name): no unit for \(rule.type.title) (\(unitField) is not a known unit)")
                    continue
                }
                unit = parsed
            }
            guard let unit else { continue }
            if let comparator = field.comparator {
                guard var sample = context.sample(rule.type, value: 0, unit: unit, deviceTime: deviceTime, start: start)
                else { continue }
                sample.value = comparator.unboundedValue
                sample.transmittedValue = comparator.unboundedValue
                sample.comparator = comparator
                output.append(sample)
                continue
            }
            guard let value = field.value?.number else {
                notes.append(field.note ?? "\(name): \(field.name) has no number for \(rule.type.title)")
                continue
            }
            guard let sample = context.sample(rule.type, value: value, unit: unit, deviceTime: deviceTime, start: start)
            else {
                notes.append("\(name): \(unit) cannot express \(rule.type.title)")
                continue
            }
            output.append(sample)
        }
    }
}

extension SessionCondition {
    /// Whether the condition holds for a frame's fields: a bare `name` holds when the field has a non-zero value
    /// (a flag bit that is set), `!name` when it has none or zero; comparisons and bit tests as in sessions.
    public func holdsForFields(_ variables: SessionVariables) -> Bool {
        switch test {
        case .defined(let name): return (variables[name]?.integer ?? 0) != 0
        case .undefined(let name): return (variables[name]?.integer ?? 0) == 0
        case .compare: return holds(for: variables)
        }
    }

    /// The variables the condition reads.
    public var variableNames: [String] {
        switch test {
        case .defined(let name), .undefined(let name): return [name]
        case .compare(let left, _, let right):
            return [left, right].compactMap {
                if case .variable(let name) = $0 { return name }
                return nil
            }
        }
    }
}
