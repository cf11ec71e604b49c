import BridgeCore
public import BridgeFoundation
import CarePlan
import CareStore
import Foundation
import GATTDecoding

extension InsightsReport {
    /// `carebridge insights --json`.
    public var json: JSONValue {
        let time = { (date: Date) -> JSONValue in .string(Timestamp.format(date, in: zone)) }
        let rounded = { (value: Double) -> JSONValue in .double((value * 1000).rounded() / 1000) }
        func completion(_ completion: TaskInsight.Completion) -> JSONValue {
            .object([
                "completed": .int(completion.completed), "total": .int(completion.total),
                "notDone": .int(completion.notDone), "rate": completion.rate.map(rounded) ?? .null,
            ])
        }
        func values(_ values: TaskInsight.Values?) -> JSONValue {
            guard let values else { return .null }
            return .object([
                "count": .int(values.count), "mean": rounded(values.mean), "min": rounded(values.min),
                "max": rounded(values.max), "latest": rounded(values.latest),
                "latestText": values.latestText.map { .string($0) } ?? .null, "latestAt": time(values.latestAt),
            ])
        }
        let tasks = tasks.map { task -> JSONValue in
            .object([
                "id": .string(task.id),
                "name": .string(task.name),
                "title": .string(task.title),
                "kind": .string(task.kind.rawValue),
                "unit": task.unit.map { .string($0) } ?? .null,
                "answer": task.answer.map { .string($0.typeName) } ?? .null,
                "completion": completion(task.completion),
                "previousCompletion": completion(task.previousCompletion),
                "values": values(task.values),
                "previousValues": values(task.previousValues),
                "days": .array(
                    task.days.map { day in
                        .object([
                            "day": .string(day.day), "completed": .int(day.completed), "total": .int(day.total),
                            "value": day.value.map(rounded) ?? .null,
                        ])
                    }
                ),
                "widget": .object([
                    "latest": task.values.map { rounded($0.latest) } ?? .null,
                    "state": .string(task.openAlerts > 0 ? "alert" : "normal"),
                    "openAlerts": .int(task.openAlerts),
                ]),
            ])
        }
        let messages = messages.map { message -> JSONValue in
            .object([
                "kind": .string(message.kind.rawValue),
                "severity": .string(message.severity.rawValue),
                "task": .string(message.taskID),
                "taskName": .string(message.taskName),
                "text": .string(message.text),
                "day": message.day.map { .string($0) } ?? .null,
                "alert": message.alertID.map { .int(Int($0)) } ?? .null,
                "state": message.state.map { .string($0) } ?? .null,
            ])
        }
        return .object([
            "patient": patient.map { .string($0) } ?? .null,
            "from": time(from),
            "to": time(to),
            "previousFrom": time(previousFrom),
            "days": .array(days.map { .string($0) }),
            "tasks": .array(tasks),
            "messages": .array(messages),
        ])
    }
}
