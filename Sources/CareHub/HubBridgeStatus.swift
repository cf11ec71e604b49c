public import BridgeFoundation
public import Foundation

/// One bridge as `carebridge hub status` shows it.
public struct HubBridgeStatus: Sendable, Hashable {
    public var name: String
    public var patients: [String]
    public var enrolledAt: Date
    /// When its last batch was stored (nil: never synced).
    public var lastContact: Date?
    /// Entries still waiting on the bridge, as it said with its last batch (nil: it never said).
    public var backlog: Int?
    /// Rows the hub holds from it, per kind.
    public var samples: Int
    public var outcomes: Int
    public var alerts: Int
    /// The highest outbox sequence of its samples at the hub.
    public var lastSampleSequence: Int64?
    /// Changes from the hub for its patients it has not dealt with yet (by its last sync), and those it refused.
    public var changesWaiting: Int = 0
    public var changesRefused: Int = 0
    /// Of its samples, those it retracted (deleted or replaced on the bridge; the hub keeps them, marked).
    public var retracted: Int = 0
    /// Devices it reported facts for (per patient; `hub status --json` lists them as `devices`).
    public var devices: Int = 0

    /// The status as JSON, times in ISO 8601 (UTC).
    public var json: JSONValue {
        let format = ISO8601DateFormatter()
        return .object([
            "bridge": .string(name), "patients": .array(patients.map(JSONValue.string)),
            "enrolledAt": .string(format.string(from: enrolledAt)),
            "lastContact": lastContact.map { .string(format.string(from: $0)) } ?? .null,
            "backlog": backlog.map { .int($0) } ?? .null,
            "samples": .int(samples), "outcomes": .int(outcomes), "alerts": .int(alerts),
            "lastSampleSequence": lastSampleSequence.map { .int(Int($0)) } ?? .null,
            "changesWaiting": .int(changesWaiting), "changesRefused": .int(changesRefused),
            "retracted": .int(retracted),
        ])
    }
}
