import BridgeCore
import BridgeFoundation
public import CareStore
import Foundation
import PostgresNIO

// MARK: - CareRecordSource

/// A patient's record across every bridge that sent for the patient: the same rows a bridge's store gives, read
/// from what the bridges sent, each fact on the day its bridge wrote it down.
extension HubStore: CareRecordSource {
    /// The patient's samples no bridge retracted, measured on `days` (and apart, those its bridge holds in
    /// quarantine and has not decided on), the recorded outcomes of events on them (every bridge's, each with its
    /// bridge), the events themselves (done or not: computed from the task versions each bridge sent, by the
    /// bridge's rules, in its zone; an event several bridges hold is there once, with each bridge's copy) and every
    /// alert change received. A day is read off the time as the bridge wrote it
    /// (``CareRecordRows/day(ofStamp:)``), never from PostgreSQL's or the hub's zone.
    public func recordRows(patient: String, days: ClosedRange<String>) async throws(HubError) -> CareRecordRows {
        guard CareRecordRows.day(ofStamp: days.lowerBound) == days.lowerBound,
            CareRecordRows.day(ofStamp: days.upperBound) == days.upperBound
        else {
            throw HubError(.invalid, "days \(days) are not yyyy-MM-dd")
        }
        let (first, last) = (days.lowerBound, days.upperBound)
        return try await database("cannot read the record of patient \(patient)") {
            let samples = try await client.query(
                """
                SELECT s.id, (s.body->>'start')::timestamptz, s.body->>'start', s.body::text FROM hub_sample s
                WHERE s.patient_id = \(patient) AND s.retracted_at IS NULL
                    AND left(s.body->>'start', 10) BETWEEN \(first) AND \(last)
                """,
                logger: logger
            ).decode((String, Date, String, String).self).collected()
            // Held apart: in quarantine, and neither released (a sample) nor deleted (a retraction) by its bridge.
            let quarantined = try await client.query(
                """
                SELECT q.id, (q.body->>'start')::timestamptz, q.body->>'start', q.body::text FROM hub_quarantine q
                WHERE q.patient_id = \(patient) AND left(q.body->>'start', 10) BETWEEN \(first) AND \(last)
                    AND NOT EXISTS (SELECT 1 FROM hub_sample s WHERE s.bridge_id = q.bridge_id AND s.id = q.id)
                    AND NOT EXISTS (SELECT 1 FROM hub_retraction r WHERE r.bridge_id = q.bridge_id AND r.id = q.id)
                """,
                logger: logger
            ).decode((String, Date, String, String).self).collected()
            let versions = try await client.query(
                """
                SELECT b.name, v.id, v.body::text FROM hub_task_version v JOIN hub_bridge b ON b.id = v.bridge_id
                WHERE v.patient_id = \(patient) ORDER BY b.name, v.arrival
                """,
                logger: logger
            ).decode((String, String, String).self).collected()
            let outcomes = try await client.query(
                """
                SELECT b.name, o.body::text FROM hub_outcome o JOIN hub_bridge b ON b.id = o.bridge_id
                WHERE o.patient_id = \(patient) AND o.body->>'state' = 'recorded'
                    AND left(o.body->>'eventStart', 10) BETWEEN \(first) AND \(last)
                """,
                logger: logger
            ).decode((String, String).self).collected()
            let reading = { (row: (String, Date, String, String)) -> CareRecordRows.Reading? in
                let (id, start, stamp, text) = row
                guard let day = CareRecordRows.day(ofStamp: stamp),
                    let reading = Self.reading(patient: patient, id: id, start: start, body: text)
                else { return nil }
                let reason = (try? JSONValue.parse(Array(text.utf8)))?.objectValue?["quarantine"]?.stringValue
                return CareRecordRows.Reading(reading: reading, day: day, quarantine: reason)
            }
            return CareRecordRows(
                readings: samples.compactMap(reading),
                quarantined: quarantined.compactMap(reading),
                outcomes: outcomes.compactMap { Self.outcome(body: $0.1, bridge: $0.0) },
                events: try Self.events(patient: patient, days: days, versions: versions, outcomes: outcomes.map(\.1)),
                alerts: try await alertRows(of: [patient])
            )
        }
    }

    /// The events on `days` of the task versions each bridge sent (`(bridge name, version id, body)`, each bridge's
    /// in its order), with the recorded outcomes (bodies of `outcome` messages) joined by version and occurrence:
    /// ``CareEvent/events(of:from:to:zone:outcome:)``, the bridge's own rule, in the zone of the bridge that made
    /// the versions. Each bridge's versions are its own (a plan put on the hub becomes a version on each bridge),
    /// so a patient enrolled on two bridges has each event twice: ``CareRecordRows/Event/merged(_:)`` makes it one,
    /// with both bridges' copies, before the day each event starts on decides whether it is in `days`.
    static func events(
        patient: String,
        days: ClosedRange<String>,
        versions: [(String, String, String)],
        outcomes: [String]
    ) throws(HubError) -> [CareRecordRows.Event] {
        var recorded: [String: Outcome] = [:]
        for body in outcomes {
            guard let object = (try? JSONValue.parse(Array(body.utf8)))?.objectValue,
                let version = object["taskVersion"]?.stringValue, case .int(let occurrence)? = object["occurrence"],
                let outcome = object["outcome"].flatMap({ OutcomeUndo.outcome(fromJSON: $0.serialized()) })
            else { continue }
            recorded["\(version.lowercased())/\(occurrence)"] = outcome
        }
        var events: [CareRecordRows.Event] = []
        for (bridge, sent) in Dictionary(grouping: versions, by: \.0).sorted(by: { $0.key < $1.key }) {
            let read = sent.compactMap { SyncMessage.taskVersion(id: $0.1, patient: patient, body: $0.2) }
            guard let zone = read.first?.zone,
                let first = try? Timestamp.parse(days.lowerBound, in: zone),
                let last = try? Timestamp.parse(days.upperBound, in: zone)
            else { continue }
            // Two days either side cover every offset; the day each event starts on decides.
            let computed: [CareEvent]
            do {
                computed = try CareEvent.events(
                    of: read.map(\.version),
                    from: first.addingTimeInterval(-2 * 86_400),
                    to: last.addingTimeInterval(3 * 86_400),
                    zone: zone
                ) { version, occurrence in recorded["\(version.uuidString.lowercased())/\(occurrence)"] }
            } catch {
                throw HubError(.invalid, "the task versions of patient \(patient) cannot be read: \(error.message)")
            }
            events += computed.map { CareRecordRows.Event($0, zone: zone, bridge: bridge) }
        }
        return CareRecordRows.Event.merged(events).filter { days.contains($0.day) }
    }

    /// An outcome message's body (`task`, `taskVersion`, `occurrence`, `eventStart`, `outcome`) as the outcome
    /// `bridge` recorded; nil when it lacks one of them.
    static func outcome(body: String, bridge: String) -> CareRecordRows.Outcome? {
        guard let object = (try? JSONValue.parse(Array(body.utf8)))?.objectValue,
            let task = object["task"]?.stringValue, let version = object["taskVersion"]?.stringValue,
            case .int(let occurrence)? = object["occurrence"],
            let day = object["eventStart"]?.stringValue.flatMap(CareRecordRows.day(ofStamp:))
        else { return nil }
        let values = object["outcome"]?.objectValue?["values"]?.arrayValue ?? []
        return CareRecordRows.Outcome(
            taskID: task,
            taskVersion: version,
            occurrence: occurrence,
            day: day,
            values: values.map { $0.objectValue?["value"]?.doubleValue },
            bridge: bridge
        )
    }
}
