public import BridgeFoundation
public import CareStore

/// What a bridge posts to `POST /sync/v1/batches`: `{"messages": [SyncMessage…], "pending": N, "changesAfter": C,
/// "results": [{"change", "kind", "refused"}…]}`, oldest first; `pending` (optional) is how many entries the bridge
/// still holds after this batch: its backlog, which `carebridge hub status` shows. `changesAfter` (optional) asks
/// for the hub's changes after the last one the bridge dealt with (the answer carries them); `results` says what
/// the bridge did with changes it got (applied, or refused and why). `patients` (optional) names the patients of
/// the batch's messages as the bridge knows them (`{"alice": "Alice Moreau"}`); the dashboard shows a patient no
/// bridge named by their id.
public struct SyncBatch: Sendable, Equatable {
    /// The most messages one batch may carry.
    public static let maximumCount = 1000

    public var messages: [SyncMessage]
    /// Entries still waiting on the bridge after this batch (nil: not said).
    public var pending: Int?
    /// The hub's sequence of the last change the bridge dealt with (nil: the bridge takes no changes).
    public var changesAfter: Int64?
    /// What the bridge did with changes it got, not yet confirmed by the hub.
    public var results: [HandledHubChange]
    /// The display names of patients, by id, as the bridge knows them (empty: not said).
    public var patientNames: [String: String]

    public init(
        messages: [SyncMessage],
        pending: Int? = nil,
        changesAfter: Int64? = nil,
        results: [HandledHubChange] = [],
        patientNames: [String: String] = [:]
    ) {
        self.messages = messages
        self.pending = pending
        self.changesAfter = changesAfter
        self.results = results
        self.patientNames = patientNames
    }

    /// The batch as JSON text.
    public var serialized: String {
        var object: JSONObject = ["messages": .array(messages.map(\.json))]
        if let pending { object["pending"] = .int(pending) }
        if let changesAfter { object["changesAfter"] = .int(Int(changesAfter)) }
        if !patientNames.isEmpty {
            var names = JSONObject()
            for (patient, name) in patientNames.sorted(by: { $0.key < $1.key }) { names[patient] = .string(name) }
            object["patients"] = .object(names)
        }
        if !results.isEmpty {
            object["results"] = .array(
                results.map {
                    .object([
                        "change": .int(Int($0.sequence)), "kind": .string($0.kind),
                        "refused": $0.refusal.map { .string($0) } ?? .null,
                    ])
                }
            )
        }
        return JSONValue.object(object).serialized()
    }

    /// Reads a posted batch.
    /// - Throws: ``HubError`` `.malformed` saying what is wrong and where.
    public init(bytes: [UInt8]) throws(HubError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, options: .strict)
        } catch {
            throw HubError(.malformed, "the batch is not JSON: \(error)")
        }
        guard let list = value.objectValue?["messages"]?.arrayValue else {
            throw HubError(.malformed, "the batch has no messages array")
        }
        guard list.count <= Self.maximumCount else {
            throw HubError(.malformed, "the batch has \(list.count) messages; at most \(Self.maximumCount) are taken")
        }
        var messages: [SyncMessage] = []
        for (index, item) in list.enumerated() { messages.append(try SyncMessage(json: item, index: index)) }
        var pending: Int?
        if let value = value.objectValue?["pending"] {
            guard case .int(let count) = value, count >= 0 else {
                throw HubError(.malformed, "the batch's pending is not a whole number, 0 or more")
            }
            pending = count
        }
        var after: Int64?
        if let value = value.objectValue?["changesAfter"] {
            guard case .int(let cursor) = value, cursor >= 0 else {
                throw HubError(.malformed, "the batch's changesAfter is not a whole number, 0 or more")
            }
            after = Int64(cursor)
        }
        var results: [HandledHubChange] = []
        for (index, item) in (value.objectValue?["results"]?.arrayValue ?? []).enumerated() {
            guard let object = item.objectValue, case .int(let change)? = object["change"], change > 0,
                let kind = object["kind"]?.stringValue
            else {
                throw HubError(.malformed, "result \(index) has no change (a whole number above 0) or kind")
            }
            let refused = object["refused"]?.stringValue.map { String($0.prefix(1000)) }
            results.append(HandledHubChange(sequence: Int64(change), kind: String(kind.prefix(50)), refusal: refused))
        }
        var names: [String: String] = [:]
        if let value = value.objectValue?["patients"] {
            guard let object = value.objectValue else {
                throw HubError(.malformed, "the batch's patients is not an object of names by patient id")
            }
            for member in object.members {
                let (patient, name) = (member.key, member.value)
                guard let text = name.stringValue, !text.isEmpty, text.utf8.count <= 200, !patient.isEmpty else {
                    throw HubError(
                        .malformed,
                        "the batch's name of patient '\(patient.prefix(50))' is no text of 1 to 200 bytes"
                    )
                }
                names[patient] = text
            }
        }
        self.init(messages: messages, pending: pending, changesAfter: after, results: results, patientNames: names)
    }

    /// What the hub answers for this batch, the same however often it is sent: how many messages it carried and
    /// the highest outbox sequence among them (device facts carry a time instead).
    public var receipt: SyncReceipt {
        SyncReceipt(
            received: messages.count,
            lastSequence: messages.filter(\.kind.isQueued).map(\.sequence).max()
        )
    }
}

/// The hub's answer to a batch it took: the same for a batch sent again (nothing is stored twice), with the
/// hub's changes after the bridge's `changesAfter` for its patients, oldest first (`more`: there are more).
public struct SyncReceipt: Sendable, Equatable {
    public var received: Int
    public var lastSequence: Int64?
    public var changes: [HubChange]
    public var more: Bool

    public init(received: Int, lastSequence: Int64?, changes: [HubChange] = [], more: Bool = false) {
        self.received = received
        self.lastSequence = lastSequence
        self.changes = changes
        self.more = more
    }

    public var json: JSONValue {
        .object([
            "received": .int(received), "lastSequence": lastSequence.map { .int(Int($0)) } ?? .null,
            "changes": .array(changes.map(\.json)), "more": .bool(more),
        ])
    }
}
