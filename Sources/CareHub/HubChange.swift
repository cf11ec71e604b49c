public import BridgeFoundation

/// One change made on the hub that goes down to the bridges (docs/hub.md, "What comes down"): a plan file for a
/// patient, a nurse's acknowledgement of a bridge's alert, a decision on a bridge's quarantined reading.
///
/// On the wire (JSON, in the answer to a batch): `{"sequence": 12, "kind": "plan", "patient": "ann", "body": {…}}`.
/// `sequence` is the hub's order of changes; a bridge asks for what came after the last one it dealt with.
///
/// | kind | body | the bridge |
/// |---|---|---|
/// | `plan` | `{"file": the plan file's text, "by"}` | parses it as `carebridge plan apply` does and applies it for `patient` |
/// | `acknowledgement` | `{"alert": id, "occurredAt", "by", "at"}` | acknowledges the alert if it is still open as the nurse saw it |
/// | `quarantine` | `{"sample": uuid, "decision": "release" or "reject", "reason", "by"}` | releases or deletes the quarantined reading, once |
public struct HubChange: Sendable, Equatable {
    /// What a change carries.
    public enum Kind: String, Sendable, CaseIterable {
        case plan
        case acknowledgement
        case quarantine
    }

    /// The hub's order of changes.
    public var sequence: Int64
    public var kind: Kind
    /// The patient it concerns: only bridges enrolled for the patient get it.
    public var patient: String
    public var body: JSONValue

    public init(sequence: Int64, kind: Kind, patient: String, body: JSONValue) {
        self.sequence = sequence
        self.kind = kind
        self.patient = patient
        self.body = body
    }

    /// The change as JSON.
    public var json: JSONValue {
        .object([
            "sequence": .int(Int(sequence)), "kind": .string(kind.rawValue), "patient": .string(patient),
            "body": body,
        ])
    }

    /// Reads one change of the hub's answer.
    /// - Throws: ``HubError`` `.malformed` naming the change and the field.
    public init(json: JSONValue, index: Int) throws(HubError) {
        guard let object = json.objectValue, case .int(let sequence)? = object["sequence"], sequence > 0 else {
            throw HubError(.malformed, "change \(index) has no sequence (a whole number above 0)")
        }
        guard let kind = object["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) else {
            throw HubError(.malformed, "change \(sequence) has an unknown kind (plan, acknowledgement or quarantine)")
        }
        guard let patient = object["patient"]?.stringValue, !patient.isEmpty else {
            throw HubError(.malformed, "change \(sequence) has no patient")
        }
        guard let body = object["body"], body.objectValue != nil else {
            throw HubError(.malformed, "change \(sequence) has no body object")
        }
        self.init(sequence: Int64(sequence), kind: kind, patient: patient, body: body)
    }
}
