import BridgeCore
import BridgeFoundation
import CareStore
import Foundation
import SampleIngest
import SessionReplay

/// What `carebridge replay` prints: devices, samples by type, events completed, unmatched samples, bad lines.
struct ReplaySummary {
    var files: [String]
    var report: PipelineReport
    var inserted: Int
    var duplicates: Int
    var unmatched: Int
    var completed: [CareEvent]
    var seconds: Double
    /// The file being replayed when SIGINT/SIGTERM stopped the replay; nil when it ran to the end.
    var interruptedIn: String? = nil

    func json(in zone: TimeZone) -> JSONValue {
        var byType = JSONObject()
        for type in report.samplesByType.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            byType[type.rawValue] = .int(report.samplesByType[type]!)
        }
        let devices = report.devices.map { device -> JSONValue in
            var object: JSONObject = [:]
            let identity = device.identity
            for (key, value) in [
                ("address", identity.address), ("name", identity.name), ("profile", device.profile),
                ("manufacturer", identity.manufacturer), ("model", identity.model), ("serial", identity.serial),
                ("firmware", identity.firmware),
            ] {
                object[key] = value.map(JSONValue.string) ?? .null
            }
            object["samples"] = .int(device.samples)
            object["downloadedRecords"] = .int(device.downloadedRecords)
            return .object(object)
        }
        let events = completed.map { event -> JSONValue in
            .object([
                "task": .string(event.taskID),
                "occurrence": .int(event.occurrence),
                "start": .string(Timestamp.format(event.start, in: zone)),
                "end": .string(Timestamp.format(event.end, in: zone)),
            ])
        }
        func problems(_ list: [IngestProblem]) -> JSONValue {
            .array(
                list.map { problem in
                    .object([
                        "file": problem.location.map { .string($0.file) } ?? .null,
                        "line": problem.location.flatMap { $0.line > 0 ? .int($0.line) : nil } ?? .null,
                        "device": problem.device.map(JSONValue.string) ?? .null,
                        "message": .string(problem.message),
                    ])
                }
            )
        }
        var summary: JSONObject = [
            "files": .array(files.map(JSONValue.string)),
            "events": .int(report.events),
            "devices": .array(devices),
            "samples": .object([
                "total": .int(report.samples),
                "new": .int(inserted),
                "alreadyStored": .int(duplicates),
                "byType": .object(byType),
                "quarantined": .int(report.quarantined),
                "outOfRange": .int(report.outOfRange),
            ]),
            "eventsCompleted": .array(events),
            "unmatchedSamples": .int(unmatched),
            "badLines": problems(report.badEvents),
            "warnings": problems(report.warnings),
            "interrupted": interruptedIn.map { .object(["file": .string($0)]) } ?? .null,
        ]
        // Only a capture of another client has them: which answers were synthesised, what came as captured.
        if !report.sessionAnswers.isEmpty { summary["sessionAnswers"] = problems(report.sessionAnswers) }
        return .object(summary)
    }

    func text(in zone: TimeZone) -> String {
        var lines: [String] = []
        let fileWord = files.count == 1 ? "recording" : "recordings"
        lines.append(
            "Replayed \(files.count) \(fileWord): \(report.events) events in \(String(format: "%.2f", seconds)) s"
        )
        if let interruptedIn {
            lines.append(
                "Interrupted during \(interruptedIn): the figures below are what was read and stored until then"
            )
        }
        lines.append("")
        if report.devices.isEmpty {
            lines.append("Devices: none")
        } else {
            var table = Table(["DEVICE", "NAME", "PROFILE", "MODEL", "SAMPLES"])
            for device in report.devices {
                let identity = device.identity
                let model = [identity.manufacturer, identity.model].compactMap { $0 }.joined(separator: " ")
                table.append([
                    identity.address ?? "-", identity.name ?? "-", device.profile ?? "(no profile)",
                    model.isEmpty ? "-" : model, String(device.samples),
                ])
            }
            lines.append(table.render())
            for device in report.devices where device.downloadedRecords > 0 {
                lines.append(
                    "\(device.identity.address ?? device.identity.key): downloaded "
                        + "\(ReplaySummary.records(device.downloadedRecords)) from its memory"
                )
            }
        }
        if !report.sessionAnswers.isEmpty {
            lines.append("Session answers (a capture of another client, answered from the records it shows):")
            for answer in report.sessionAnswers { lines.append("  \(answer.message)") }
        }
        lines.append("")
        if report.samplesByType.isEmpty {
            lines.append("Samples: none")
        } else {
            var table = Table(["SAMPLE TYPE", "COUNT"])
            for type in report.samplesByType.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                table.append([type.rawValue, String(report.samplesByType[type]!)])
            }
            lines.append(table.render())
        }
        lines.append("")
        lines.append("Stored: \(inserted) new, \(duplicates) already stored, \(unmatched) unmatched (no event)")
        if report.outOfRange > 0 {
            lines.append(
                "Out of range (LO/HI): \(report.outOfRange), stored with their comparator and completing events"
            )
        }
        if report.quarantined > 0 {
            lines.append(
                "Quarantined: \(report.quarantined) (kept, not used; list them with `carebridge samples --quarantined`)"
            )
        }
        if completed.isEmpty {
            lines.append("Events completed: none")
        } else {
            lines.append("Events completed: \(completed.count)")
            var table = Table(["  TASK", "#", "START", "END"])
            for event in completed {
                table.append([
                    "  " + event.taskID, String(event.occurrence), Timestamp.format(event.start, in: zone),
                    Timestamp.format(event.end, in: zone),
                ])
            }
            lines.append(table.render())
        }
        lines.append(
            "Bad lines: \(report.badEvents.count)\(report.badEvents.isEmpty ? "" : " (skipped; listed on stderr)")"
        )
        if !report.warnings.isEmpty { lines.append("Warnings: \(report.warnings.count) (on stderr)") }
        return lines.joined(separator: "\n")
    }

    /// "1 stored record", "12 stored records".
    static func records(_ count: Int) -> String { count == 1 ? "1 stored record" : "\(count) stored records" }
}
