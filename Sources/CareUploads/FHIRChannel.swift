import BridgeCore
public import CareStore
import Foundation
public import Logging
public import MQTTBridge
public import SampleExport

/// The store's `fhir` outbox as an ``OutboxChannel``: readings go to a FHIR server as transaction Bundles in the
/// PHD IG shape that `export --format fhir --bundle transaction` writes (``FHIRBundleWriter``), one Bundle per batch,
/// one request at a time, in the order the store holds them, delivered by the one ``OutboxService`` (`carebridge
/// fhir push` drains it once, `carebridge run --fhir-server` runs it beside the bridge).
///
/// Why transactions of conditional creates (`POST` with `ifNoneExist` on the guide's identifier, or CareBridge's
/// sample id when the device gave no time stamp) rather than `PUT` by id: the PHD IG's own duplicate check is
/// the identifier, so a reading another gateway already uploaded is recognised too; a server need not allow
/// client-assigned ids; references between the Device, the gateway, the coincident time stamp and the Observation
/// resolve inside the Bundle without CareBridge keeping the server's ids; and a transaction is atomic, so a Bundle
/// either landed whole or not at all. Servers are known to create duplicates when the same conditional create
/// arrives twice at once, so nothing is sent in parallel.
///
/// An entry is removed only after the server's 2xx for the Bundle that carried it: nothing is lost across outages
/// and restarts, and a Bundle sent again creates nothing new. A failed post is retried after the server's
/// `Retry-After` when it gave one (429, 503), else after a back-off (1 s doubling up to 60 s). A refused token
/// (401, 403) keeps everything queued and is reported as such.
///
/// Sent: readings of the types FHIR export maps (``VitalSignCoding/of(_:)``); deleted readings as `entered-in-error`
/// (a conditional update). Not sent: other types, quarantined readings (until released, which queues them again),
/// readings of another patient than ``patient`` (when set) and readings in the unassigned inbox.
public actor FHIRChannel: SampleBatchChannel {
    /// The store's outbox channel of the FHIR push.
    public static let storeChannel = "fhir"
    /// Readings per Bundle.
    public nonisolated let batchSize: Int

    public nonisolated let name = "fhir"
    public nonisolated let client: FHIRClient
    /// Only this patient's readings are sent; nil: every patient's.
    public nonisolated let patient: String?
    /// The Bundle's subject, gateway and zone.
    public nonisolated let options: FHIRBundleWriter.Options
    public nonisolated let store: CareStore
    let logger: Logger
    /// The last attempts' failures, `Retry-After` and refusal.
    public var attempts = UploadAttempts()
    /// Readings the server confirmed, and entries dropped without sending, since the channel was made.
    public private(set) var sent = 0
    public private(set) var skipped = 0
    /// The last failure when the server refused the token (cleared by the server's next other answer).
    public var refusal: String? { attempts.refusal }

    /// - Parameters:
    ///   - store: the bridge's store.
    ///   - client: the server and its token.
    ///   - options: subject or patient, gateway, zone of the Bundles (the bundle type is always a transaction).
    ///   - patient: only this patient's readings are sent.
    ///   - batchSize: readings per Bundle.
    ///   - logger: posts (debug); failures through the service's warning.
    public init(
        store: CareStore,
        client: FHIRClient,
        options: FHIRBundleWriter.Options,
        patient: String? = nil,
        batchSize: Int = 50,
        logger: Logger
    ) {
        self.store = store
        self.client = client
        var options = options
        options.bundleType = .transaction
        self.options = options
        self.patient = patient
        self.batchSize = max(1, batchSize)
        var logger = logger
        logger[metadataKey: "fhir"] = "\(client.server)"
        self.logger = logger
    }

    /// Starts queueing for the server: every sample stored from now on, and the first time also every stored one.
    public func enable() async throws(CareStoreError) {
        try await store.enableOutbox(
            channel: Self.storeChannel,
            includingStored: true,
            sampleTypes: Set(QuantityType.allCases.filter { VitalSignCoding.of($0) != nil })
        )
    }

    // MARK: - OutboxChannel

    public nonisolated func isQueued(by change: StoreChange) -> Bool {
        switch change {
        case .sampleAdded, .sampleDeleted: true
        case .eventUpdated, .taskListChanged: false
        }
    }

    // MARK: - SampleBatchChannel

    public func send(_ records: [ExportRecord]) async -> String? {
        let bundle: String
        do {
            bundle = try Self.bundle(records, options: options)
        } catch {
            return "cannot write the FHIR bundle: \(error)"
        }
        do {
            try await client.post(bundle: bundle)
            logger.debug("bundle confirmed", metadata: ["fhir.readings": "\(records.count)"])
            attempts.succeeded()
            return nil
        } catch {
            attempts.failed(error)
            return error.description
        }
    }

    /// The transaction Bundle of `records`, as `export --format fhir --bundle transaction` writes it.
    static func bundle(_ records: [ExportRecord], options: FHIRBundleWriter.Options) throws -> String {
        var text = ""
        let writer = FHIRBundleWriter(options: options, sink: { text += $0 })
        for record in records { try writer.write(record) }
        _ = try writer.finish()
        return text
    }

    public func confirmed(sent: Int, skipped: Int) {
        self.sent += sent
        self.skipped += skipped
    }

    /// The record an outbox entry stands for, or nil when it is not sent (see the type's notes).
    public func item(for entry: OutboxEntry) -> ExportRecord? {
        guard let stored = entry.sample, VitalSignCoding.of(stored.sample.type) != nil,
            !stored.sample.isQuarantined, !stored.isUnassigned, patient == nil || stored.patientID == patient
        else { return nil }
        return ExportRecord(sample: stored.sample, retracted: stored.deletedDate != nil, patient: stored.patientID)
    }

    /// The server's `Retry-After` (at most ``UploadAttempts/maximumRetryAfter``), else the back-off.
    public func retryDelay() -> Duration { attempts.retryDelay() }
}
