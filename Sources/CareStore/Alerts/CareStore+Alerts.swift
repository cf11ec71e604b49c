import BridgeCore
public import CarePlan
public import Foundation
import GRDB

extension CareStore {
    /// The alert outbox channels CareBridge delivers to.
    public static let mqttAlertChannel = "mqtt"
    public static let webhookAlertChannel = "webhook"
    public static let emailAlertChannel = "email"

    /// Makes the stored alerts of `taskIDs` in `[from, to)` match `trips`, in one transaction.
    ///
    /// A trip whose (task, rule, subject) has no alert raises one; one that has an alert updates its message,
    /// value and evidence without raising it again (raised once); one whose alert was withdrawn raises it again.
    /// An alert of those tasks in the interval that no trip confirms any more is withdrawn (a late reading or a
    /// correction changed the facts). Raising, re-raising and withdrawing each queue a notification for every
    /// enabled alert channel in the same transaction.
    /// - Parameters:
    ///   - trips: every trip of the rules of `taskIDs` whose `occurredAt` lies in `[from, to)`.
    ///   - now: when this evaluation ran.
    public func reconcileAlerts(
        _ trips: [AlertTrip],
        taskIDs: Set<String>,
        from: Date,
        to: Date,
        now: Date = Date()
    ) async throws(CareStoreError) -> AlertReconciliation {
        try await write { db in
            var result = AlertReconciliation()
            let channels = try String.fetchAll(db, sql: "SELECT name FROM alertChannel ORDER BY name")
            var existing: [String: (id: Int64, withdrawn: Bool, row: Row)] = [:]
            if !taskIDs.isEmpty {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM alert WHERE occurredAt >= ? AND occurredAt < ?
                        AND taskID IN (\(databaseQuestionMarks(count: taskIDs.count)))
                        """,
                    arguments: StatementArguments([from.timeIntervalSince1970, to.timeIntervalSince1970])
                        + StatementArguments(taskIDs.sorted())
                )
                for row in rows {
                    let key = Self.alertKey(row["taskID"], row["ruleID"], row["subject"])
                    existing[key] = (row["id"], (row["withdrawnAt"] as Double?) != nil, row)
                }
            }
            var confirmed: Set<Int64> = []
            for trip in trips where taskIDs.contains(trip.taskID) {
                let key = Self.alertKey(trip.taskID, trip.ruleID, trip.subject)
                var found = existing[key].map { ($0.id, $0.withdrawn) }
                if found == nil {
                    // The same subject outside the interval (e.g. its time moved with a correction).
                    found = try Row.fetchOne(
                        db,
                        sql: "SELECT id, withdrawnAt FROM alert WHERE taskID = ? AND ruleID = ? AND subject = ?",
                        arguments: [trip.taskID, trip.ruleID, trip.subject]
                    ).map { ($0["id"] as Int64, ($0["withdrawnAt"] as Double?) != nil) }
                }
                let evidence = Self.evidenceJSON(trip)
                if let (id, withdrawn) = found {
                    confirmed.insert(id)
                    let row = existing[key]?.row
                    let same =
                        row.map { row in
                            (row["message"] as String) == trip.message && (row["value"] as Double?) == trip.value
                                && (row["evidence"] as String) == evidence
                                && (row["taskUUID"] as String) == trip.taskVersion.uuidString.lowercased()
                                && (row["severity"] as String) == trip.severity.rawValue
                        } ?? false
                    if !same || withdrawn {
                        try db.execute(
                            sql: """
                                UPDATE alert SET taskUUID = ?, taskVersion = ?, severity = ?, message = ?, value = ?,
                                    unit = ?, occurredAt = ?, day = ?, evidence = ?, updatedAt = ?,
                                    withdrawnAt = NULL, withdrawnReason = NULL
                                WHERE id = ?
                                """,
                            arguments: [
                                trip.taskVersion.uuidString.lowercased(), trip.taskVersionNumber,
                                trip.severity.rawValue, trip.message, trip.value, trip.unit?.rawValue,
                                trip.occurredAt.timeIntervalSince1970, trip.day, evidence, now.timeIntervalSince1970,
                                id,
                            ]
                        )
                    }
                    if withdrawn {
                        result.raised.append(id)
                        try Self.enqueue(db, alertID: id, change: .raised, channels: channels, now: now)
                    } else if !same {
                        result.updated.append(id)
                    }
                    continue
                }
                try db.execute(
                    sql: """
                        INSERT INTO alert (
                            taskID, ruleID, taskUUID, taskVersion, subject, severity, message, value, unit,
                            occurredAt, day, evidence, raisedAt, updatedAt
                        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        trip.taskID, trip.ruleID, trip.taskVersion.uuidString.lowercased(), trip.taskVersionNumber,
                        trip.subject, trip.severity.rawValue, trip.message, trip.value, trip.unit?.rawValue,
                        trip.occurredAt.timeIntervalSince1970, trip.day, evidence, now.timeIntervalSince1970,
                        now.timeIntervalSince1970,
                    ]
                )
                let id = db.lastInsertedRowID
                confirmed.insert(id)
                result.raised.append(id)
                try Self.enqueue(db, alertID: id, change: .raised, channels: channels, now: now)
            }
            for (_, entry) in existing where !entry.withdrawn && !confirmed.contains(entry.id) {
                try db.execute(
                    sql: "UPDATE alert SET withdrawnAt = ?, withdrawnReason = ?, updatedAt = ? WHERE id = ?",
                    arguments: [
                        now.timeIntervalSince1970, "the readings or answers no longer trip the rule",
                        now.timeIntervalSince1970, entry.id,
                    ]
                )
                result.withdrawn.append(entry.id)
                try Self.enqueue(db, alertID: entry.id, change: .withdrawn, channels: channels, now: now)
            }
            result.raised.sort()
            result.withdrawn.sort()
            result.updated.sort()
            return result
        }
    }

    /// How many alerts are open (neither acknowledged nor withdrawn) per patient, in one query; patients
    /// without an open alert are absent. A scoped store counts its patient's only.
    public func openAlertCounts() async throws(CareStoreError) -> [String: Int] {
        let scope = patientScope
        return try await read { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT owner.patientID, COUNT(*) FROM alert
                    JOIN (SELECT DISTINCT task.id AS taskID, carePlan.patientID AS patientID
                          FROM task JOIN carePlan ON carePlan.id = task.carePlanID) AS owner
                      ON owner.taskID = alert.taskID
                    WHERE alert.acknowledgedAt IS NULL AND alert.withdrawnAt IS NULL
                      AND (? IS NULL OR owner.patientID = ?)
                    GROUP BY owner.patientID
                    """,
                arguments: [scope, scope]
            )
            while let row = try rows.next() { counts[row[0]] = row[1] }
            return counts
        }
    }

    /// The rows of the scoped patient (alerts, outcomes: anything with a `taskID` column) are those of tasks in
    /// the patient's plans.
    static let patientTaskCondition = """
        taskID IN (SELECT task.id FROM task JOIN carePlan ON carePlan.id = task.carePlanID WHERE carePlan.patientID = ?)
        """

    /// Stored alerts of the scoped patient (their tasks' rules), or every patient's.
    /// - Parameters:
    ///   - from: only alerts whose facts happened at or after this instant.
    ///   - to: … and before this one.
    ///   - includeClosed: also acknowledged and withdrawn alerts.
    ///   - severity: only alerts of this severity or a higher one.
    ///   - order: oldest occurrence first (default), or most severe then newest first.
    public func alerts(
        from: Date? = nil,
        to: Date? = nil,
        includeClosed: Bool = true,
        severity: AlertSeverity? = nil,
        order: AlertOrder = .occurrence
    ) async throws(CareStoreError)
        -> [Alert]
    {
        let scope = patientScope
        return try await read { db in
            var conditions: [String] = []
            var arguments = StatementArguments()
            if let severity {
                let names = AlertSeverity.allCases.filter { $0 >= severity }.map(\.rawValue)
                conditions.append("severity IN (\(databaseQuestionMarks(count: names.count)))")
                arguments += StatementArguments(names)
            }
            if let from {
                conditions.append("occurredAt >= ?")
                arguments += [from.timeIntervalSince1970]
            }
            if let to {
                conditions.append("occurredAt < ?")
                arguments += [to.timeIntervalSince1970]
            }
            if !includeClosed { conditions.append("acknowledgedAt IS NULL AND withdrawnAt IS NULL") }
            if let scope {
                conditions.append(Self.patientTaskCondition)
                arguments += [scope]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let alerts = try Row.fetchAll(
                db,
                sql: "SELECT \(Self.alertColumns()) FROM alert \(filter) ORDER BY occurredAt, id",
                arguments: arguments
            )
            .map(Self.alert)
            switch order {
            case .occurrence: return alerts
            case .triage:
                return alerts.sorted {
                    ($0.trip.severity, $0.trip.occurredAt, $0.id) > ($1.trip.severity, $1.trip.occurredAt, $1.id)
                }
            }
        }
    }

    /// One alert by id, or nil.
    public func alert(id: Int64) async throws(CareStoreError) -> Alert? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.alertColumns()) FROM alert WHERE id = ?", arguments: [id])
                .map(Self.alert)
        }
    }

    /// Records that a person has seen the alert and taken care of it. Acknowledging twice changes nothing.
    /// - Throws: ``CareStoreError`` `.alertNotFound`.
    @discardableResult
    public func acknowledgeAlert(
        id: Int64,
        by person: String?,
        at now: Date = Date()
    ) async throws(CareStoreError) -> Alert {
        try await acknowledgeAlerts(ids: [id], by: person, at: now)[0]
    }

    /// Acknowledges several alerts in one transaction: all of them, or none when one is unknown (or, in a
    /// scoped store, another patient's). An alert already acknowledged stays as it was.
    /// - Returns: the alerts, in the order of `ids` (duplicates once).
    /// - Throws: ``CareStoreError`` `.alertNotFound` naming the first id that is not there.
    @discardableResult
    public func acknowledgeAlerts(
        ids: [Int64],
        by person: String?,
        at now: Date = Date()
    ) async throws(CareStoreError) -> [Alert] {
        let scope = patientScope
        return try await write { db in try Self.acknowledge(db, checking: ids, of: scope, by: person, now: now) }
    }

    /// Checks that every id is an alert (of the patient `scope`, when given), then acknowledges them.
    static func acknowledge(
        _ db: Database,
        checking ids: [Int64],
        of scope: String?,
        by person: String?,
        now: Date
    ) throws -> [Alert] {
        var seen: Set<Int64> = []
        let ids = ids.filter { seen.insert($0).inserted }
        for id in ids {
            guard try Int64.fetchOne(db, sql: "SELECT id FROM alert WHERE id = ?", arguments: [id]) != nil else {
                throw CareStoreError(.alertNotFound, "no alert \(id) (see `carebridge alerts --all`)")
            }
            if let scope,
                try !Bool(
                    Int.fetchOne(
                        db,
                        sql: "SELECT count(*) FROM alert WHERE id = ? AND \(Self.patientTaskCondition)",
                        arguments: [id, scope]
                    ) ?? 0 > 0
                )
            {
                throw CareStoreError(
                    .alertNotFound,
                    "alert \(id) is not one of patient '\(scope)' (see `carebridge alerts --all --patient \(scope)`)"
                )
            }
        }
        return try acknowledge(db, ids: ids, by: person, now: now)
    }

    /// Acknowledges every open alert (of the scoped patient, or every patient's) whose facts happened before
    /// `before`, in one transaction: clearing a backlog without touching what came after.
    /// - Returns: the alerts acknowledged, oldest occurrence first.
    @discardableResult
    public func acknowledgeAlerts(
        before: Date,
        by person: String?,
        at now: Date = Date()
    ) async throws(CareStoreError) -> [Alert] {
        let scope = patientScope
        return try await write { db in
            var sql = "SELECT id FROM alert WHERE acknowledgedAt IS NULL AND withdrawnAt IS NULL AND occurredAt < ?"
            var arguments: StatementArguments = [before.timeIntervalSince1970]
            if let scope {
                sql += " AND \(Self.patientTaskCondition)"
                arguments += [scope]
            }
            let ids = try Int64.fetchAll(db, sql: sql + " ORDER BY occurredAt, id", arguments: arguments)
            return try Self.acknowledge(db, ids: ids, by: person, now: now)
        }
    }

    /// Marks the alerts acknowledged (those not acknowledged yet) and queues the change for every channel.
    static func acknowledge(_ db: Database, ids: [Int64], by person: String?, now: Date) throws -> [Alert] {
        let channels = try String.fetchAll(db, sql: "SELECT name FROM alertChannel ORDER BY name")
        var alerts: [Alert] = []
        for id in ids {
            try db.execute(
                sql: """
                    UPDATE alert SET acknowledgedAt = ?, acknowledgedBy = ?, updatedAt = ?
                    WHERE id = ? AND acknowledgedAt IS NULL
                    """,
                arguments: [now.timeIntervalSince1970, person, now.timeIntervalSince1970, id]
            )
            if db.changesCount > 0 {
                try enqueue(db, alertID: id, change: .acknowledged, channels: channels, now: now)
            }
            if let row = try Row.fetchOne(db, sql: "SELECT \(alertColumns()) FROM alert WHERE id = ?", arguments: [id])
            {
                alerts.append(alert(row))
            }
        }
        return alerts
    }

    /// Starts queueing alert notifications for `channel`. When the channel is new, the alerts open at that
    /// moment are queued as raised (so the receiver learns about them), in the order they occurred.
    public func enableAlertChannel(_ channel: String, at now: Date = Date()) async throws(CareStoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO alertChannel (name, enabledAt) VALUES (?, ?)",
                arguments: [channel, now.timeIntervalSince1970]
            )
            guard db.changesCount > 0 else { return }
            let open = try Int64.fetchAll(
                db,
                sql: "SELECT id FROM alert WHERE acknowledgedAt IS NULL AND withdrawnAt IS NULL ORDER BY occurredAt, id"
            )
            for id in open { try Self.enqueue(db, alertID: id, change: .raised, channels: [channel], now: now) }
        }
    }

    /// Stops queueing for `channel` and drops what is pending. Returns how many were dropped.
    @discardableResult
    public func disableAlertChannel(_ channel: String) async throws(CareStoreError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM alertChannel WHERE name = ?", arguments: [channel])
            try db.execute(sql: "DELETE FROM alertDelivery WHERE channel = ?", arguments: [channel])
            return db.changesCount
        }
    }

    /// The oldest pending notifications of `channel`, in order, that are due at `now` (a failed one waits for
    /// its next attempt, and those after it wait too, so notifications stay in order).
    public func pendingAlertDeliveries(
        channel: String,
        limit: Int,
        now: Date = Date()
    ) async throws(CareStoreError)
        -> [AlertDelivery]
    {
        try await read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.sequence, d.channel, d.change, d.attempts, d.nextAttemptAt, d.lastError,
                        \(Self.alertColumns("a"))
                    FROM alertDelivery d JOIN alert a ON a.id = d.alertID
                    WHERE d.channel = ? ORDER BY d.sequence LIMIT ?
                    """,
                arguments: [channel, limit]
            )
            var deliveries: [AlertDelivery] = []
            for row in rows {
                // Compared as stored (seconds since 1970): a `Date` made from them can differ from the retry
                // time it was written from by a rounding step, which made a retry due "now" not due yet.
                let nextSeconds: Double = row["nextAttemptAt"]
                if nextSeconds > now.timeIntervalSince1970 { break }
                let next = Date(timeIntervalSince1970: nextSeconds)
                deliveries.append(
                    AlertDelivery(
                        sequence: row["sequence"],
                        channel: row["channel"],
                        change: AlertChange(rawValue: row["change"]) ?? .raised,
                        alert: Self.alert(row),
                        attempts: row["attempts"],
                        nextAttemptAt: next,
                        lastError: row["lastError"]
                    )
                )
            }
            return deliveries
        }
    }

    /// Removes a delivered notification and, in the same transaction, records what it actually reached: in the
    /// sharing audit list one entry per contact the receiver confirmed (what `alert`, the delivery's channel,
    /// detail `alert N raised: message`), and the recipients it refused for good as ``AlertDeliveryFailure``s. A
    /// receiver that is not a person (a webhook, a broker) reaches no contact and records nothing.
    /// - Parameters:
    ///   - reached: the ids of the contacts the receiver confirmed (ids that are not contacts of the alert's
    ///     patient are ignored).
    ///   - refused: the recipients refused for good: the contact (if any), the address, the receiver's answer.
    /// - Returns: the audit entries written.
    @discardableResult
    public func completeAlertDelivery(
        sequence: Int64,
        reached: [String] = [],
        refused: [(contactID: String?, recipient: String, error: String)] = [],
        at now: Date = Date()
    ) async throws(CareStoreError) -> [ShareRecord] {
        try await write { db -> [ShareRecord] in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT d.channel, d.change, a.id, a.message, \(Self.patientColumn("a"))
                    FROM alertDelivery d JOIN alert a ON a.id = d.alertID
                    WHERE d.sequence = ?
                    """,
                arguments: [sequence]
            )
            try db.execute(sql: "DELETE FROM alertDelivery WHERE sequence = ?", arguments: [sequence])
            guard let row else { return [] }
            let channel: String = row["channel"]
            let change: String = row["change"]
            let alertID: Int64 = row["id"]
            for refusal in refused {
                try db.execute(
                    sql: """
                        INSERT INTO alertDeliveryFailure (
                            channel, alertID, change, contactID, recipient, error, failedAt
                        ) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        channel, alertID, change, refusal.contactID, refusal.recipient, refusal.error,
                        now.timeIntervalSince1970,
                    ]
                )
            }
            guard !reached.isEmpty, let patientID: String = row["patientID"] else { return [] }
            let contacts = Set(try Self.contacts(db, patientID: patientID).map(\.id))
            let message: String = row["message"]
            let detail = "alert \(alertID) \(change): \(message)"
            var records: [ShareRecord] = []
            for contactID in Set(reached).sorted() where contacts.contains(contactID) {
                let entry = ShareRecord(
                    id: 0,
                    contactID: contactID,
                    what: "alert",
                    channel: channel,
                    detail: detail,
                    at: now
                )
                records.append(try Self.recordShare(db, entry))
            }
            return records
        }
    }

    /// The notifications receivers refused for good, oldest first (of one channel, or all).
    public func alertDeliveryFailures(channel: String? = nil) async throws(CareStoreError) -> [AlertDeliveryFailure] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT channel, alertID, change, contactID, recipient, error, failedAt FROM alertDeliveryFailure
                    WHERE ? IS NULL OR channel = ? ORDER BY failedAt, id
                    """,
                arguments: [channel, channel]
            ).map { row in
                AlertDeliveryFailure(
                    channel: row["channel"],
                    alertID: row["alertID"],
                    change: AlertChange(rawValue: row["change"]) ?? .raised,
                    contactID: row["contactID"],
                    recipient: row["recipient"],
                    error: row["error"],
                    failedAt: Date(timeIntervalSince1970: row["failedAt"])
                )
            }
        }
    }

    /// Records a failed attempt; the notification is tried again at `retryAt`.
    public func failAlertDelivery(sequence: Int64, error: String, retryAt: Date) async throws(CareStoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE alertDelivery SET attempts = attempts + 1, nextAttemptAt = ?, lastError = ?
                    WHERE sequence = ?
                    """,
                arguments: [retryAt.timeIntervalSince1970, error, sequence]
            )
        }
    }

    /// How many notifications `channel` has pending.
    public func alertDeliveryCount(channel: String) async throws(CareStoreError) -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM alertDelivery WHERE channel = ?", arguments: [channel])
                ?? 0
        }
    }

    // MARK: - Internals

    /// The columns of the alert `table` (its name or alias in `FROM`), its patient's id (`patientID`) and its
    /// task's name (`taskName`, from the newest version), for ``alert(_:)``.
    static func alertColumns(_ table: String = "alert") -> String {
        """
        \(table).*, \(patientColumn(table)),
        (SELECT task.name FROM task WHERE task.id = \(table).taskID ORDER BY task.versionNumber DESC LIMIT 1)
         AS taskName
        """
    }

    /// `patientID`: the patient of the plan the alert's task belongs to (NULL in a store without patients).
    static func patientColumn(_ table: String) -> String {
        """
        (SELECT carePlan.patientID FROM task JOIN carePlan ON carePlan.id = task.carePlanID
         WHERE task.id = \(table).taskID ORDER BY task.versionNumber DESC, carePlan.versionNumber DESC LIMIT 1)
         AS patientID
        """
    }

    static func alertKey(_ taskID: String, _ ruleID: String, _ subject: String) -> String {
        "\(taskID)\u{0}\(ruleID)\u{0}\(subject)"
    }

    static func enqueue(_ db: Database, alertID: Int64, change: AlertChange, channels: [String], now: Date) throws {
        for channel in channels {
            try db.execute(
                sql: """
                    INSERT INTO alertDelivery (channel, alertID, change, enqueuedAt, nextAttemptAt)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [channel, alertID, change.rawValue, now.timeIntervalSince1970, now.timeIntervalSince1970]
            )
        }
    }

    /// `{"events": […], "samples": […]}` with sorted keys, so equal evidence is equal text.
    static func evidenceJSON(_ trip: AlertTrip) -> String {
        let events = trip.events.map { "\"\($0)\"" }.joined(separator: ",")
        let samples = trip.samples.map { "\"\($0.uuidString.lowercased())\"" }.joined(separator: ",")
        return "{\"events\":[\(events)],\"samples\":[\(samples)]}"
    }

    static func alert(_ row: Row) -> Alert {
        var events: [String] = []
        var samples: [UUID] = []
        if let data = (row["evidence"] as String?).map({ Data($0.utf8) }),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: [String]]
        {
            events = object["events"] ?? []
            samples = (object["samples"] ?? []).compactMap(UUID.init(uuidString:))
        }
        let date = { (column: String) -> Date? in (row[column] as Double?).map(Date.init(timeIntervalSince1970:)) }
        return Alert(
            id: row["id"],
            trip: AlertTrip(
                taskID: row["taskID"],
                ruleID: row["ruleID"],
                taskVersion: UUID(uuidString: row["taskUUID"]) ?? UUID(),
                taskVersionNumber: row["taskVersion"],
                subject: row["subject"],
                severity: AlertSeverity(rawValue: row["severity"]) ?? .warning,
                message: row["message"],
                value: row["value"],
                unit: (row["unit"] as String?).map(HealthUnit.init(rawValue:)),
                occurredAt: date("occurredAt")!,
                day: row["day"],
                events: events,
                samples: samples
            ),
            raisedAt: date("raisedAt")!,
            updatedAt: date("updatedAt")!,
            acknowledgedAt: date("acknowledgedAt"),
            acknowledgedBy: row["acknowledgedBy"],
            withdrawnAt: date("withdrawnAt"),
            withdrawnReason: row["withdrawnReason"],
            patientID: row["patientID"],
            name: (row["taskName"] as String?).flatMap { $0 == (row["taskID"] as String) ? nil : $0 }
        )
    }
}
