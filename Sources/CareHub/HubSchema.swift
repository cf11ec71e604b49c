/// The hub's PostgreSQL schema as ordered, named migrations, recorded in their own table (`hub_migration`).
///
/// Append-only: a migration is never edited once released; a change is a new migration at the end. Each runs in
/// its own transaction under an advisory lock, so two hubs starting on one database do not both apply it.
///
/// - `hub_bridge`: one row per enrolled bridge: its name, the SHA-256 of its token (never the token), when it
///   was enrolled and when it last synced.
/// - `hub_enrolment`: the patients a bridge may write for.
/// - `hub_sample`, `hub_outcome`, `hub_alert`: what bridges sent, keyed by the bridge and CareBridge's own id (a
///   sample's id, an outcome's id, an alert's id and change: an alert's id is only unique in its bridge's store),
///   so a message sent twice is stored once (`ON CONFLICT DO NOTHING`).
///   Each row keeps the bridge that sent it, the bridge's outbox sequence (its order on the bridge) and `arrival`,
///   the hub's own order of receipt: per bridge, arrival order and bridge order agree. An outcome's row is the
///   event's newest state (its sequence decides), and `hub_outcome_change` keeps every state received
///   (`v2-outcome-changes`), so an undone outcome stays on record at the hub.
/// - `hub_bridge.backlog` (`v3-bridge-backlog`): what the bridge said it still held with its last batch.
/// - `hub_change` (`v4-changes`): what comes down, in the hub's order (`sequence`): plan files, acknowledgements,
///   quarantine decisions, each for a patient (and an acknowledgement or a decision for one bridge);
///   `hub_change_result`: what each bridge did with each (applied, or refused and why); `hub_bridge.change_cursor`:
///   the last change the bridge said it dealt with.
/// - `hub_retraction` (`v5-retractions-devices`): samples the bridge deleted or replaced after they went up, each
///   once; `hub_sample.retracted_at` marks the sample (it is never deleted). `hub_device`: each device's newest
///   facts per bridge and patient (address, name, model, serial, firmware, battery, last seen).
/// - `hub_bridge.certificate_hash` (`v6-client-certificates`): the SHA-256 of the bridge's client certificate when
///   its credential is one (`token_hash` is then NULL: a bridge has one credential at a time).
/// - `hub_user`, `hub_user_patient`, `hub_session` (`v7-users`): the care team's dashboard: its users (a bcrypt
///   hash, never a password), the patients each may see, and the signed-in sessions (the SHA-256 of the cookie's
///   token, hex).
/// - `hub_enrolment.patient_name` (`v8-patient-names`): the patient's name as their bridge last sent it (with
///   `patient_named_at`); NULL until a bridge sends one (an older bridge never does: the dashboard shows the id).
/// - `hub_sample_latest` (`v9-overview-index`): the readings no bridge retracted by patient, type and instant
///   (`hub_instant(start)`), newest first: the overview's newest readings without reading the rest.
/// - `hub_task_version` (`v11-task-versions`): every task version each bridge made (schedule, effective date,
///   deletion), each once: the events of a patient's day are computed from them with the bridge's rules.
public enum HubSchema {
    /// The migrations in the order they run.
    public static let migrations: [(name: String, sql: [String])] = [
        (
            "v1-bridges",
            [
                """
                CREATE TABLE hub_bridge (
                    id bigserial PRIMARY KEY,
                    name text NOT NULL UNIQUE,
                    token_hash text NOT NULL UNIQUE,
                    enrolled_at timestamptz NOT NULL DEFAULT now(),
                    last_contact timestamptz
                )
                """,
                """
                CREATE TABLE hub_enrolment (
                    bridge_id bigint NOT NULL REFERENCES hub_bridge (id) ON DELETE CASCADE,
                    patient_id text NOT NULL,
                    enrolled_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (bridge_id, patient_id)
                )
                """,
            ]
        ),
        // The kinds of v1, named: a kind added later gets its table in its own migration.
        ("v1-received", [SyncMessage.Kind.sample, .outcome, .alert].flatMap(HubSchema.receivedTable)),
        (
            "v2-outcome-changes",
            [
                """
                CREATE TABLE hub_outcome_change (
                    \(HubSchema.messageColumns),
                    PRIMARY KEY (bridge_id, id, bridge_sequence)
                )
                """,
                "CREATE INDEX hub_outcome_change_patient ON hub_outcome_change (patient_id)",
            ]
        ),
        ("v3-bridge-backlog", ["ALTER TABLE hub_bridge ADD COLUMN backlog bigint"]),
        (
            "v4-changes",
            [
                """
                CREATE TABLE hub_change (
                    sequence bigserial PRIMARY KEY,
                    kind text NOT NULL,
                    patient_id text NOT NULL,
                    bridge_id bigint REFERENCES hub_bridge (id),
                    body jsonb NOT NULL,
                    created_by text,
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX hub_change_patient ON hub_change (patient_id, sequence)",
                """
                CREATE TABLE hub_change_result (
                    bridge_id bigint NOT NULL REFERENCES hub_bridge (id),
                    change_sequence bigint NOT NULL REFERENCES hub_change (sequence),
                    kind text NOT NULL,
                    refused text,
                    received_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (bridge_id, change_sequence)
                )
                """,
                "ALTER TABLE hub_bridge ADD COLUMN change_cursor bigint",
            ]
        ),
        (
            "v5-retractions-devices",
            HubSchema.receivedTable(.retraction) + [
                "ALTER TABLE hub_sample ADD COLUMN retracted_at timestamptz",
                """
                CREATE TABLE hub_device (
                    \(HubSchema.messageColumns),
                    PRIMARY KEY (bridge_id, patient_id, id)
                )
                """,
            ]
        ),
        (
            "v6-client-certificates",
            [
                "ALTER TABLE hub_bridge ALTER COLUMN token_hash DROP NOT NULL",
                "ALTER TABLE hub_bridge ADD COLUMN certificate_hash text UNIQUE",
            ]
        ),
        (
            "v7-users",
            [
                """
                CREATE TABLE hub_user (
                    id text PRIMARY KEY,
                    display_name text NOT NULL,
                    role text NOT NULL,
                    password_hash text NOT NULL,
                    time_zone text,
                    created_at timestamptz NOT NULL
                )
                """,
                """
                CREATE TABLE hub_user_patient (
                    user_id text NOT NULL REFERENCES hub_user (id) ON DELETE CASCADE,
                    patient_id text NOT NULL,
                    PRIMARY KEY (user_id, patient_id)
                )
                """,
                """
                CREATE TABLE hub_session (
                    token_hash text PRIMARY KEY,
                    user_id text NOT NULL REFERENCES hub_user (id) ON DELETE CASCADE,
                    csrf_token text NOT NULL,
                    created_at timestamptz NOT NULL,
                    expires_at timestamptz NOT NULL
                )
                """,
            ]
        ),
        (
            "v8-patient-names",
            [
                "ALTER TABLE hub_enrolment ADD COLUMN patient_name text",
                "ALTER TABLE hub_enrolment ADD COLUMN patient_named_at timestamptz",
            ]
        ),
        (
            "v9-overview-index",
            [
                // A sample's `start` as an instant, the same whatever the session's zone (a start without an
                // offset reads as UTC), so an index may hold it.
                """
                CREATE FUNCTION hub_instant(text) RETURNS timestamptz
                LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET "TimeZone" = 'UTC'
                AS $$ SELECT $1::timestamptz $$
                """,
                """
                CREATE INDEX hub_sample_latest ON hub_sample
                    (patient_id, (body->>'type'), hub_instant(body->>'start') DESC, id DESC)
                WHERE retracted_at IS NULL
                """,
            ]
        ),
        (
            "v10-quarantine",
            HubSchema.receivedTable(.quarantined) + [
                // The care team's decision at the hub, at most one per reading (docs/hub.md, "Authority").
                "ALTER TABLE hub_quarantine ADD COLUMN decision text",
                "ALTER TABLE hub_quarantine ADD COLUMN decision_reason text",
                "ALTER TABLE hub_quarantine ADD COLUMN decided_by text",
                "ALTER TABLE hub_quarantine ADD COLUMN decided_at timestamptz",
                "ALTER TABLE hub_quarantine ADD COLUMN decision_change bigint REFERENCES hub_change (sequence)",
            ]
        ),
        // The bridges' task versions: the hub computes a patient's events (done, missed, due) from them.
        ("v11-task-versions", HubSchema.receivedTable(.taskVersion)),
    ]

    /// The columns every table of received messages has.
    static let messageColumns = """
        id text NOT NULL,
        bridge_id bigint NOT NULL REFERENCES hub_bridge (id),
        bridge_sequence bigint NOT NULL,
        patient_id text NOT NULL,
        body jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
        """

    /// The table of one kind of message, with its indexes.
    static func receivedTable(_ kind: SyncMessage.Kind) -> [String] {
        [
            """
            CREATE TABLE \(kind.table) (
                \(messageColumns),
                arrival bigserial NOT NULL UNIQUE,
                PRIMARY KEY (bridge_id, id)
            )
            """,
            "CREATE INDEX \(kind.table)_bridge ON \(kind.table) (bridge_id, bridge_sequence)",
            "CREATE INDEX \(kind.table)_patient ON \(kind.table) (patient_id)",
        ]
    }
}
