public import BridgeFoundation

/// One message of a sync batch: a sample, an outcome or an alert change a bridge stored, a sample's retraction, a
/// sample it holds in quarantine, a task version, or what the bridge knows about a device of a patient, with
/// CareBridge's own id.
///
/// On the wire (JSON): `{"kind": "sample", "id": "…", "sequence": 17, "patient": "alice", "body": {…}}`. The id
/// makes the message idempotent at the hub; `sequence` is the bridge's outbox sequence (its order on the bridge),
/// for device facts the time the bridge read them (milliseconds since 1970: a later reading replaces an earlier
/// one); `body` is the record as CareBridge writes it (a sample as `QuantitySample.json(in:)`).
public struct SyncMessage: Sendable, Equatable {
    /// What a message carries; each kind has its own table at the hub.
    public enum Kind: String, Sendable, CaseIterable {
        case sample
        case outcome
        case alert
        /// A sample deleted or replaced on the bridge after it went up: the id is the sample's.
        case retraction
        /// A device's facts for one patient (address, name, model, serial, firmware, battery, last seen): the id
        /// is the device's key; the newest facts replace the held ones.
        case device
        /// A sample the bridge holds in quarantine (an implausible value, a status saying it is invalid): the id is
        /// the sample's. The hub holds it apart from the record until the care team (or the bridge) decides.
        case quarantined
        /// A version of a task of the patient's plan as the bridge made it (schedule, effective date, deletion):
        /// the id is the version's uuid. The hub computes the patient's events from these, as the bridge does.
        case taskVersion

        /// The hub's table of this kind (a fixed name: never built from input).
        var table: String {
            switch self {
            case .sample: "hub_sample"
            case .outcome: "hub_outcome"
            case .alert: "hub_alert"
            case .retraction: "hub_retraction"
            case .device: "hub_device"
            case .quarantined: "hub_quarantine"
            case .taskVersion: "hub_task_version"
            }
        }

        /// Whether the message stands for an entry of the bridge's outbox (its sequence is the outbox's).
        var isQueued: Bool { self != .device }
    }

    public var kind: Kind
    /// CareBridge's id: a sample's UUID (lowercase, also of its retraction), an outcome's id, an alert's
    /// `id/change/delivery`, a device's key.
    public var id: String
    /// The bridge's order: its outbox sequence.
    public var sequence: Int64
    /// The patient the record belongs to; the bridge must be enrolled for it.
    public var patient: String
    public var body: JSONValue

    public init(kind: Kind, id: String, sequence: Int64, patient: String, body: JSONValue) {
        self.kind = kind
        self.id = id
        self.sequence = sequence
        self.patient = patient
        self.body = body
    }

    /// The message as JSON.
    public var json: JSONValue {
        .object([
            "kind": .string(kind.rawValue), "id": .string(id), "sequence": .int(Int(sequence)),
            "patient": .string(patient), "body": body,
        ])
    }

    /// Reads one message of a batch.
    /// - Parameter index: its position in the batch, for the error.
    /// - Throws: ``HubError`` `.malformed` naming the message and the field.
    public init(json: JSONValue, index: Int) throws(HubError) {
        guard let object = json.objectValue else {
            throw HubError(.malformed, "message \(index) is not an object")
        }
        func text(_ key: String) throws(HubError) -> String {
            guard let value = object[key]?.stringValue, !value.isEmpty, value.utf8.count <= 200 else {
                throw HubError(.malformed, "message \(index) has no \(key) (a text of 1 to 200 bytes)")
            }
            return value
        }
        guard let kind = Kind(rawValue: try text("kind")) else {
            throw HubError(
                .malformed,
                "message \(index) has an unknown kind (sample, outcome, alert, retraction, device, quarantined or "
                    + "taskVersion)"
            )
        }
        guard case .int(let sequence)? = object["sequence"], sequence >= 0 else {
            throw HubError(.malformed, "message \(index) has no sequence (a whole number, 0 or more)")
        }
        guard let body = object["body"], body.objectValue != nil else {
            throw HubError(.malformed, "message \(index) has no body object")
        }
        self.init(kind: kind, id: try text("id"), sequence: Int64(sequence), patient: try text("patient"), body: body)
    }
}
