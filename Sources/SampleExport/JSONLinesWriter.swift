import BridgeCore
import BridgeFoundation
public import Foundation

/// Writes samples as JSON Lines: one object per line, `QuantitySample.json(in:)` plus `matches`.
///
/// Each line is a complete JSON object, so a reader can stop anywhere and resume from a line boundary.
public final class JSONLinesWriter {
    public let timeZone: TimeZone
    private let sink: ExportSink
    private var summary = ExportSummary()
    private var finished = false

    public init(timeZone: TimeZone = .current, sink: @escaping ExportSink) {
        self.timeZone = timeZone
        self.sink = sink
    }

    /// Adds one line.
    /// - Throws: ``ExportError`` after `finish()`, or what the sink throws.
    public func write(_ record: ExportRecord) throws {
        guard !finished else { throw ExportError.finished("JSON Lines writer") }
        guard !record.sample.isQuarantined, !record.retracted else {
            // Not an observation until a person releases it (`carebridge samples release`).
            summary.records += 1
            summary.skipped[record.sample.type, default: 0] += 1
            return
        }
        guard case .object(var object) = record.sample.json(in: timeZone) else { return }
        if let patient = record.patient { object["patient"] = .string(patient) }
        if let aggregate = record.aggregate {
            // Not one reading: no id, and what it summarises.
            object["id"] = nil
            var formatter = ZoneFormatter(zone: timeZone)
            object["aggregate"] = .object([
                "count": .int(aggregate.count), "min": .double(aggregate.min), "max": .double(aggregate.max),
                "sum": .double(aggregate.sum), "bucketStart": .string(formatter.format(aggregate.bucketStart)),
                "bucketEnd": .string(formatter.format(aggregate.bucketEnd)),
            ])
        }
        object["matches"] = .array(
            record.matches.map { .object(["task": .string($0.task), "occurrence": .int($0.occurrence)]) }
        )
        summary.records += 1
        summary.exported += 1
        summary.resources += 1
        try sink(JSONValue.object(object).serialized() + "\n")
    }

    public func finish() throws -> ExportSummary {
        guard !finished else { throw ExportError.finished("JSON Lines writer") }
        finished = true
        return summary
    }
}
