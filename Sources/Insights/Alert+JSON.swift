import BridgeCore
public import BridgeFoundation
import CarePlan
public import CareStore
public import Foundation

extension Alert {
    /// The alert as `carebridge alerts --json` and the webhook show it: `task` is the task's store-wide key (as
    /// before), `taskName` its name in the patient's plan (the same for a first patient, `medication` for
    /// `medication@bed-2`).
    public func json(in zone: TimeZone) -> JSONValue {
        let time = { (date: Date?) -> JSONValue in date.map { .string(Timestamp.format($0, in: zone)) } ?? .null }
        return .object([
            "id": .int(Int(id)),
            "patient": patientID.map { .string($0) } ?? .null,
            "task": .string(trip.taskID),
            "taskName": .string(taskName),
            "rule": .string(trip.ruleID),
            "ruleVersion": .int(trip.taskVersionNumber),
            "taskVersion": .string(trip.taskVersion.uuidString.lowercased()),
            "severity": .string(trip.severity.rawValue),
            "state": .string(state),
            "message": .string(trip.message),
            "value": trip.value.map { .double($0) } ?? .null,
            "unit": trip.unit.map { .string($0.rawValue) } ?? .null,
            "occurredAt": time(trip.occurredAt),
            "day": .string(trip.day),
            "subject": .string(trip.subject),
            "events": .array(trip.events.map { .string($0) }),
            "samples": .array(trip.samples.map { .string($0.uuidString.lowercased()) }),
            "raisedAt": time(raisedAt),
            "acknowledgedAt": time(acknowledgedAt),
            "acknowledgedBy": acknowledgedBy.map { .string($0) } ?? .null,
            "withdrawnAt": time(withdrawnAt),
            "withdrawnReason": withdrawnReason.map { .string($0) } ?? .null,
        ])
    }
}
