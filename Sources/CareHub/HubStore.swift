import BridgeFoundation
import Foundation
public import Logging
public import PostgresNIO

/// The hub's store on PostgreSQL: enrolment, the batches bridges send, and what the hub holds per bridge.
///
/// A `Sendable` façade over a `PostgresClient` (which must be running: ``HubDatabase/withClient(_:logger:_:)`` or
/// a service group) with intention-named methods; the rules of what a bridge may write live here, where the sync
/// endpoint and the command line both use them. Over several servers (``HubPrimary``), the client is the one on the
/// writable server now: an operation that fails on a lost connection or a read-only server makes the hub look for
/// the writable one again.
public struct HubStore: Sendable {
    /// The client on the writable server now.
    public var client: PostgresClient { primary.client }
    /// The server (or servers) the store writes to.
    public let primary: HubPrimary
    /// How long one operation may wait for PostgreSQL before it fails as `.database`.
    public var deadline: Duration
    /// The clock the deadline runs on.
    let clock: any Clock<Duration>
    let logger: Logger

    /// A store over one running client.
    public init(
        client: PostgresClient,
        deadline: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.init(primary: HubPrimary(client: client), deadline: deadline, clock: clock, logger: logger)
    }

    /// A store over the writable server `primary` finds (it must be running: ``HubDatabase/withStore(deadline:logger:_:)`` or a service group).
    public init(
        primary: HubPrimary,
        deadline: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger
    ) {
        self.primary = primary
        self.deadline = deadline
        self.clock = clock
        self.logger = logger
    }

    // MARK: - Schema

    /// Applies the migrations not applied yet, in order, each in its own transaction under an advisory lock.
    /// - Returns: the names of the migrations applied now.
    @discardableResult
    public func migrate() async throws(HubError) -> [String] {
        // A hub that starts beside its database (or on a loaded machine) waits longer for the schema than a request
        // waits for an answer.
        try await database("cannot migrate the hub's schema", within: Self.migrationDeadline) {
            try await client.query(
                """
                CREATE TABLE IF NOT EXISTS hub_migration (
                    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                """,
                logger: logger
            )
            var applied: [String] = []
            for migration in HubSchema.migrations {
                let ran = try await client.withTransaction(logger: logger) { connection in
                    // The same lock for every hub process on this database: one migrates, the others wait and see.
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
                    let done = try await connection.query(
                        "SELECT 1 FROM hub_migration WHERE name = \(migration.name)",
                        logger: logger
                    ).collect()
                    guard done.isEmpty else { return false }
                    for statement in migration.sql {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO hub_migration (name) VALUES (\(migration.name))",
                        logger: logger
                    )
                    return true
                }
                if ran { applied.append(migration.name) }
            }
            if !applied.isEmpty { logger.info("hub schema migrated", metadata: ["migrations": "\(applied)"]) }
            return applied
        }
    }

    /// The advisory lock key the migrations take ("CBHUB" in ASCII).
    static let migrationLock: Int64 = 0x43_4248_5542

    // MARK: - Enrolment

    /// Enrols a bridge for `patients`, or enrols an enrolled bridge for more patients (which then gets their plans
    /// put on the hub before, even those its cursor is past: ``queuePlans(of:for:on:)``).
    ///
    /// A bridge has one credential at a time: a token, or a client certificate. Issuing either replaces the
    /// other and any earlier one of its kind, which stop working at once.
    /// - Parameters:
    ///   - name: the bridge's name (letters, digits, `-`, `_`, `.`).
    ///   - patients: the patient ids it may write for.
    ///   - newToken: issue a new token for an enrolled bridge (its old token or certificate stops working).
    ///   - certificate: the bridge's credential becomes this client certificate (its fingerprint is kept).
    /// - Returns: the bridge's token when one was issued (a new bridge without `certificate`, or `newToken`); only
    ///   its hash is kept.
    public func enrol(
        bridge name: String,
        patients: [String],
        newToken: Bool = false,
        certificate: HubClientCertificate? = nil
    ) async throws(HubError)
        -> HubToken?
    {
        guard !(newToken && certificate != nil) else {
            throw HubError(.invalid, "a bridge has a token or a certificate: not both")
        }
        guard !name.isEmpty, name.utf8.count <= 100,
            name.unicodeScalars.allSatisfy({
                CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)
            })
        else {
            throw HubError(.invalid, "bridge name '\(name)' is not 1 to 100 letters, digits, '-', '_' or '.'")
        }
        if let bad = patients.first(where: { $0.isEmpty || $0.utf8.count > 200 }) {
            throw HubError(.invalid, "patient id '\(bad)' is not 1 to 200 bytes")
        }
        let token = HubToken.generate()
        return try await database("cannot enrol bridge \(name)") {
            try await client.withTransaction(logger: logger) { connection in
                var issued: HubToken?
                var id = try await connection.query(
                    "SELECT id FROM hub_bridge WHERE name = \(name) FOR UPDATE",
                    logger: logger
                ).decode(Int64.self).collected().first
                if let certificate {
                    // A certificate replaces the token and any earlier certificate.
                    if id == nil {
                        id = try await connection.query(
                            """
                            INSERT INTO hub_bridge (name, certificate_hash) VALUES (\(name), \(certificate.fingerprint))
                            RETURNING id
                            """,
                            logger: logger
                        ).decode(Int64.self).collected().first
                    } else {
                        try await connection.query(
                            """
                            UPDATE hub_bridge SET certificate_hash = \(certificate.fingerprint), token_hash = NULL
                            WHERE id = \(id!)
                            """,
                            logger: logger
                        )
                    }
                } else if id == nil {
                    id = try await connection.query(
                        "INSERT INTO hub_bridge (name, token_hash) VALUES (\(name), \(token.hash)) RETURNING id",
                        logger: logger
                    ).decode(Int64.self).collected().first
                    issued = token
                } else if newToken {
                    try await connection.query(
                        "UPDATE hub_bridge SET token_hash = \(token.hash), certificate_hash = NULL WHERE id = \(id!)",
                        logger: logger
                    )
                    issued = token
                }
                let added = try await connection.query(
                    """
                    INSERT INTO hub_enrolment (bridge_id, patient_id) SELECT \(id!), unnest(\(patients)::text[])
                    ON CONFLICT DO NOTHING RETURNING patient_id
                    """,
                    logger: logger
                ).decode(String.self).collected()
                try await queuePlans(of: added, for: id!, on: connection)
                return issued
            }
        }
    }

    /// The bridge a token belongs to, or nil.
    public func bridge(token: HubToken) async throws(HubError) -> HubBridge? {
        try await bridge(where: "token_hash", is: token.hash)
    }

    /// The bridge a client certificate (by ``HubClientCertificate/fingerprint``) belongs to, or nil: nil too for
    /// a certificate the bridge's later enrolment replaced.
    public func bridge(certificateFingerprint fingerprint: String) async throws(HubError) -> HubBridge? {
        try await bridge(where: "certificate_hash", is: fingerprint)
    }

    /// The bridge whose credential `column` holds `hash`, with its patients.
    private func bridge(where column: String, is hash: String) async throws(HubError) -> HubBridge? {
        try await database("cannot look up the bridge") {
            let rows = try await client.query(
                """
                SELECT b.id, b.name, coalesce(array_agg(e.patient_id ORDER BY e.patient_id)
                    FILTER (WHERE e.patient_id IS NOT NULL), '{}')
                FROM hub_bridge b LEFT JOIN hub_enrolment e ON e.bridge_id = b.id
                WHERE b.\(unescaped: column) = \(hash) GROUP BY b.id
                """,
                logger: logger
            )
            for try await (id, name, patients) in rows.decode((Int64, String, [String]).self) {
                return HubBridge(id: id, name: name, patients: Set(patients))
            }
            return nil
        }
    }

    // MARK: - Sync

    /// Stores a bridge's batch: every message's patient must be one the bridge is enrolled for, or nothing is
    /// stored. Samples and alert changes the hub holds already (same kind and id) are left as they are, so a batch
    /// sent again stores nothing twice and gets the same receipt. An outcome is the event's state: a message with
    /// a higher sequence than the held one replaces it (recorded, undone, recorded again), an older or repeated
    /// one changes nothing; every state received is also kept in `hub_outcome_change`, so an undo stays visible
    /// after the event is recorded again. What the bridge did with changes it got is recorded in the same
    /// transaction; the receipt carries the changes after the bridge's `changesAfter` (docs/hub.md).
    /// - Throws: ``HubError`` `.forbidden` naming the patients the bridge is not enrolled for; `.database`.
    public func receive(_ batch: SyncBatch, from bridge: HubBridge) async throws(HubError) -> SyncReceipt {
        let foreign = Set(batch.messages.map(\.patient)).union(batch.patientNames.keys)
            .subtracting(bridge.patients).sorted()
        guard foreign.isEmpty else {
            throw HubError(
                .forbidden,
                "bridge \(bridge.name) is not enrolled for patient\(foreign.count == 1 ? "" : "s") "
                    + "\(foreign.joined(separator: ", ")); nothing of the batch was stored"
            )
        }
        let stored = try await database("cannot store the batch of bridge \(bridge.name)") {
            try await client.withTransaction(logger: logger) { connection in
                var stored = 0
                for kind in SyncMessage.Kind.allCases {
                    // Oldest first, so `arrival` follows the bridge's order; an id once (its newest state), since one
                    // statement cannot update a row twice.
                    // (A device's facts are per patient: one device may serve two.)
                    var newest: [String: SyncMessage] = [:]
                    for message in batch.messages where message.kind == kind {
                        let key = kind == .device ? "\(message.patient)\u{0}\(message.id)" : message.id
                        if newest[key].map({ $0.sequence < message.sequence }) ?? true {
                            newest[key] = message
                        }
                    }
                    let messages = newest.values.sorted { $0.sequence < $1.sequence }
                    guard !messages.isEmpty else { continue }
                    let ids = messages.map(\.id)
                    let sequences = messages.map(\.sequence)
                    let patients = messages.map(\.patient)
                    let bodies = messages.map { $0.body.serialized() }
                    var query = PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO \(kind.table) (id, bridge_id, bridge_sequence, patient_id, body)
                            SELECT m.id, $1, m.sequence, m.patient, m.body::jsonb
                            FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[])
                                WITH ORDINALITY AS m (id, sequence, patient, body, position)
                            ORDER BY m.position
                            \(Self.conflict(of: kind))
                            """
                    )
                    query.binds.append(bridge.id, context: .default)
                    query.binds.append(ids, context: .default)
                    query.binds.append(sequences, context: .default)
                    query.binds.append(patients, context: .default)
                    query.binds.append(bodies, context: .default)
                    let inserted = try await connection.query(query, logger: logger)
                    _ = try await inserted.collect()
                    if kind == .outcome {
                        var history = query
                        history.sql = """
                            INSERT INTO hub_outcome_change (id, bridge_id, bridge_sequence, patient_id, body)
                            SELECT m.id, $1, m.sequence, m.patient, m.body::jsonb
                            FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[])
                                WITH ORDINALITY AS m (id, sequence, patient, body, position)
                            ORDER BY m.position
                            ON CONFLICT DO NOTHING
                            """
                        _ = try await connection.query(history, logger: logger).collect()
                    }
                    stored +=
                        try await connection.query(
                            "SELECT count(*) FROM \(unescaped: kind.table) WHERE bridge_id = \(bridge.id) AND id = ANY(\(ids))",
                            logger: logger
                        ).decode(Int64.self).collected().first.map(Int.init) ?? 0
                }
                let retractable = batch.messages.filter { [.sample, .retraction].contains($0.kind) }.map(\.id)
                if !retractable.isEmpty {
                    // A retraction marks its sample (whichever arrived first); nothing is deleted.
                    try await connection.query(
                        """
                        UPDATE hub_sample s SET retracted_at = r.received_at FROM hub_retraction r
                        WHERE s.bridge_id = \(bridge.id) AND s.id = ANY(\(retractable)) AND s.retracted_at IS NULL
                            AND r.bridge_id = s.bridge_id AND r.id = s.id
                        """,
                        logger: logger
                    )
                }
                try await connection.query(
                    """
                    UPDATE hub_bridge SET last_contact = now(), backlog = coalesce(\(batch.pending), backlog)
                    WHERE id = \(bridge.id)
                    """,
                    logger: logger
                )
                if !batch.patientNames.isEmpty {
                    let named = batch.patientNames.sorted { $0.key < $1.key }
                    try await connection.query(
                        """
                        UPDATE hub_enrolment e SET patient_name = n.name, patient_named_at = now()
                        FROM unnest(\(named.map(\.key))::text[], \(named.map(\.value))::text[]) AS n (id, name)
                        WHERE e.bridge_id = \(bridge.id) AND e.patient_id = n.id
                            AND e.patient_name IS DISTINCT FROM n.name
                        """,
                        logger: logger
                    )
                }
                try await record(batch, of: bridge, on: connection)
                return stored
            }
        }
        logger.info(
            "batch received",
            metadata: [
                "bridge": "\(bridge.name)", "messages": "\(batch.messages.count)",
                "patients": "\(Set(batch.messages.map(\.patient)).sorted())", "held": "\(stored)",
            ]
        )
        var receipt = batch.receipt
        if let after = batch.changesAfter {
            (receipt.changes, receipt.more) = try await changes(for: bridge, after: after)
        }
        return receipt
    }

    /// What a message the hub holds already does: an outcome's newer state replaces the held one (the same or an
    /// older one changes nothing), a device's newer facts replace the held ones, a sample, an alert change, a
    /// retraction, a quarantined sample or a task version (never changed once made) is kept as first received.
    static func conflict(of kind: SyncMessage.Kind) -> String {
        switch kind {
        case .outcome:
            """
            ON CONFLICT (bridge_id, id) DO UPDATE SET bridge_sequence = excluded.bridge_sequence,
                patient_id = excluded.patient_id, body = excluded.body, received_at = now()
            WHERE hub_outcome.bridge_sequence < excluded.bridge_sequence
            """
        case .device:
            """
            ON CONFLICT (bridge_id, patient_id, id) DO UPDATE SET bridge_sequence = excluded.bridge_sequence,
                body = excluded.body, received_at = now()
            WHERE hub_device.bridge_sequence <= excluded.bridge_sequence
            """
        case .sample, .alert, .retraction, .quarantined, .taskVersion: "ON CONFLICT DO NOTHING"
        }
    }

    // MARK: - Status

    /// Every bridge with its patients, last contact and what the hub holds from it, by name.
    public func status() async throws(HubError) -> [HubBridgeStatus] {
        try await database("cannot read the hub's status") {
            let rows = try await client.query(
                """
                SELECT b.name, coalesce((SELECT array_agg(patient_id ORDER BY patient_id) FROM hub_enrolment
                        WHERE bridge_id = b.id), '{}'),
                    b.enrolled_at, b.last_contact, b.backlog,
                    (SELECT count(*) FROM hub_sample WHERE bridge_id = b.id),
                    (SELECT count(*) FROM hub_outcome WHERE bridge_id = b.id),
                    (SELECT count(*) FROM hub_alert WHERE bridge_id = b.id),
                    (SELECT max(bridge_sequence) FROM hub_sample WHERE bridge_id = b.id),
                    (SELECT count(*) FROM hub_change c WHERE c.sequence > coalesce(b.change_cursor, 0)
                        AND (c.bridge_id IS NULL OR c.bridge_id = b.id)
                        AND c.patient_id IN (SELECT patient_id FROM hub_enrolment WHERE bridge_id = b.id)),
                    (SELECT count(*) FROM hub_change_result WHERE bridge_id = b.id AND refused IS NOT NULL),
                    (SELECT count(*) FROM hub_sample WHERE bridge_id = b.id AND retracted_at IS NOT NULL),
                    (SELECT count(*) FROM hub_device WHERE bridge_id = b.id)
                FROM hub_bridge b ORDER BY b.name
                """,
                logger: logger
            )
            var list: [HubBridgeStatus] = []
            for try await (
                name, patients, enrolled, contact, backlog, samples, outcomes, alerts, last, waiting, refused,
                retracted, devices
            )
                in rows.decode(
                    (String, [String], Date, Date?, Int64?, Int64, Int64, Int64, Int64?, Int64, Int64, Int64, Int64)
                        .self
                )
            {
                list.append(
                    HubBridgeStatus(
                        name: name,
                        patients: patients,
                        enrolledAt: enrolled,
                        lastContact: contact,
                        backlog: backlog.map(Int.init),
                        samples: Int(samples),
                        outcomes: Int(outcomes),
                        alerts: Int(alerts),
                        lastSampleSequence: last,
                        changesWaiting: Int(waiting),
                        changesRefused: Int(refused),
                        retracted: Int(retracted),
                        devices: Int(devices)
                    )
                )
            }
            return list
        }
    }

    // MARK: - Errors

    /// How long ``migrate()`` waits for PostgreSQL (the whole schema, under its lock).
    public static let migrationDeadline: Duration = .seconds(120)

    /// Runs `body` within `limit` (default ``deadline``), turning a driver error into ``HubError`` `.database` with
    /// `message`.
    ///
    /// While PostgreSQL is down the driver's pool holds a request until it gives up on connecting (a minute);
    /// the deadline answers sooner, so that a bridge hears 503 and backs off instead of waiting (its timer is cancelled
    /// once an answer is in). The answer does not
    /// wait for `body` to wind down: `body` is cancelled and left to finish on its own (a lease the pool still holds
    /// after a PostgreSQL restart can outlive its cancellation), so no request, and no graceful stop, hangs on it.
    func database<Result: Sendable>(
        _ message: String,
        within limit: Duration? = nil,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws(HubError) -> Result {
        let deadline = limit ?? self.deadline
        let primary = primary
        let outcome = await FirstAnswer.race(within: deadline, on: clock) {
            // While the hub looks for its writable server, a request waits here (within its deadline).
            try await primary.ready()
            return try await body()
        }
        if HubPrimary.isConnectionFailure(outcome) { primary.suspect() }
        // A probe that could not connect says why (a certificate, no TLS, a refused connection).
        let problem = HubPrimary.isConnectionFailure(outcome) ? primary.problem.map { " (\($0))" } ?? "" : ""
        switch outcome {
        case .success(let value)?:
            return value
        case .failure(let error as HubError)?:
            throw error
        case .failure(let error as PostgresTransactionError)?:
            // A refusal from inside a transaction (rolled back) is the refusal, not a database failure.
            if let refusal = error.closureError as? HubError, error.rollbackError == nil { throw refusal }
            throw HubError(.database, message, cause: error)
        case .failure(let error)?:
            throw HubError(.database, message + problem, cause: error)
        case nil:
            throw HubError(.database, "\(message): PostgreSQL did not answer within \(deadline)\(problem)")
        }
    }
}
