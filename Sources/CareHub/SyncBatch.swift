public import BridgeFoundation

/// What a bridge posts to `POST /sync/v1/batches`: `{"messages": [SyncMessage…], "pending": N}`, oldest first;
/// `pending` (optional) is how many entries the bridge still holds after this batch: its backlog, which
/// `carebridge hub status` shows.
public struct SyncBatch: Sendable, Equatable {
    /// The most messages one batch may carry.
    public static let maximumCount = 1000

    public var messages: [SyncMessage]
    /// Entries still waiting on the bridge after this batch (nil: not said).
    public var pending: Int?

    public init(messages: [SyncMessage], pending: Int? = nil) {
        self.messages = messages
        self.pending = pending
    }

    /// The batch as JSON text.
    public var serialized: String {
        var object: JSONObject = ["messages": .array(messages.map(\.json))]
        if let pending { object["pending"] = .int(pending) }
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
        self.init(messages: messages, pending: pending)
    }

    /// What the hub answers for this batch, the same however often it is sent: how many messages it carried and
    /// the highest sequence among them.
    public var receipt: SyncReceipt {
        SyncReceipt(received: messages.count, lastSequence: messages.map(\.sequence).max())
    }
}

/// The hub's answer to a batch it took: the same for a batch sent again (nothing is stored twice).
public struct SyncReceipt: Sendable, Equatable {
    public var received: Int
    public var lastSequence: Int64?

    public init(received: Int, lastSequence: Int64?) {
        self.received = received
        self.lastSequence = lastSequence
    }

    public var json: JSONValue {
        .object([
            "received": .int(received), "lastSequence": lastSequence.map { .int(Int($0)) } ?? .null,
        ])
    }
}
