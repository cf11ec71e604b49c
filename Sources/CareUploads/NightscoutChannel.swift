import BridgeCore
public import CareStore
public import Foundation
public import Logging
public import MQTTBridge

/// The store's `nightscout` outbox as an ``OutboxChannel``: blood-glucose readings go to a Nightscout site as
/// API v1 `mbg` entries (``NightscoutEntry``), in batches, in the order the store holds them, delivered by the one
/// ``OutboxService`` (`carebridge nightscout push` drains it once, `carebridge run --nightscout` runs it beside
/// the bridge).
///
/// The store queues every stored glucose reading for this channel (and, when the channel is first enabled, every
/// one it already holds: the first push sends the glucose history); no other type is queued for it. An entry is removed
/// only after the site's 2xx for the batch that carried it, so nothing is lost across outages and restarts, and a
/// batch sent again replaces itself on the site (Nightscout upserts an entry by its time and type).
///
/// A failed upload is retried after the site's `Retry-After` when it gave one (429, 503), else after a back-off
/// (1 s doubling up to 60 s). A refused secret (401, 403) keeps everything queued and is reported as such.
///
/// Not sent: readings of other patients than ``patient`` (when set), quarantined readings (until released, which
/// queues them again), deleted readings (retractions are not sent yet) and readings in the unassigned inbox
/// (assigning one queues it again).
public actor NightscoutChannel: SampleBatchChannel {
    /// The store's outbox channel of Nightscout.
    public static let storeChannel = "nightscout"
    /// Entries per upload.
    public nonisolated let batchSize = 100

    public nonisolated let name = "nightscout"
    public nonisolated let client: NightscoutClient
    /// Only this patient's readings go to the site (a Nightscout site is one person's); nil: every patient's.
    public nonisolated let patient: String?
    public nonisolated let store: CareStore
    let zone: TimeZone
    let logger: Logger
    /// The last attempts' failures, `Retry-After` and refusal.
    public var attempts = UploadAttempts()
    /// Readings the site confirmed, and entries dropped without sending, since the channel was made.
    public private(set) var sent = 0
    public private(set) var skipped = 0
    /// The last failure when the site refused the secret (cleared by the site's next other answer).
    public var refusal: String? { attempts.refusal }

    /// - Parameters:
    ///   - store: the bridge's store.
    ///   - client: the site and its secret.
    ///   - patient: only this patient's readings are sent.
    ///   - zone: the zone the readings' `dateString` is written in.
    ///   - logger: uploads (debug), skipped entries (debug); failures through the service's warning.
    public init(store: CareStore, client: NightscoutClient, patient: String? = nil, zone: TimeZone, logger: Logger) {
        self.store = store
        self.client = client
        self.patient = patient
        self.zone = zone
        var logger = logger
        logger[metadataKey: "nightscout"] = "\(client.site)"
        self.logger = logger
    }

    /// Starts queueing for Nightscout: every glucose reading stored from now on, and the first time also every
    /// stored one (the store queues no other type for this channel).
    public func enable() async throws(CareStoreError) {
        try await store.enableOutbox(channel: Self.storeChannel, includingStored: true, sampleTypes: [.bloodGlucose])
    }

    // MARK: - OutboxChannel

    public nonisolated func isQueued(by change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded: true
        case .sampleDeleted, .eventUpdated, .taskListChanged: false
        }
    }

    // MARK: - SampleBatchChannel

    public func send(_ entries: [NightscoutEntry]) async -> String? {
        do {
            try await client.upload(entries)
            logger.debug("entries confirmed", metadata: ["nightscout.entries": "\(entries.count)"])
            attempts.succeeded()
            return nil
        } catch {
            attempts.failed(error)
            return error.description
        }
    }

    public func confirmed(sent: Int, skipped: Int) {
        self.sent += sent
        self.skipped += skipped
    }

    /// The entry an outbox entry stands for, or nil when it is not sent (see the type's notes).
    public func item(for entry: OutboxEntry) -> NightscoutEntry? {
        guard let stored = entry.sample, !stored.sample.isQuarantined, stored.deletedDate == nil,
            !stored.isUnassigned, patient == nil || stored.patientID == patient
        else { return nil }
        return NightscoutEntry(stored, zone: zone)
    }

    /// The site's `Retry-After` (at most ``UploadAttempts/maximumRetryAfter``), else the back-off.
    public func retryDelay() -> Duration { attempts.retryDelay() }
}
