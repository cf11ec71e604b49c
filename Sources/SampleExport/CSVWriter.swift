import BridgeCore
public import Foundation

/// Writes samples as CSV (RFC 4180): a header, then one row per sample, lines ending in CRLF.
///
/// Columns: `id, type, value, unit, start, end, source, device, transmitted_value, transmitted_unit, task,
/// occurrence, comparator, interpretation, status, patient, aggregate_count, aggregate_min, aggregate_max`.
/// The `aggregate_*` columns are empty for a raw sample; a row that stands for samples a retention vacuum
/// replaced has no id, its mean as `value`, its first and last sample's times as `start` and `end`, and the
/// count, min and max of the samples in them. A LO/HI sample has `comparator` `<`/`>` and
/// `interpretation` `LO`/`HI`; its `value` is the device's limit, empty when the limit is unknown (a value is
/// never written without its comparator). `status` lists the device's status flags, joined with `;`.
/// Quarantined samples are not written (counted as skipped). Values are the shortest text that reads back as the same Double; times are ISO-8601 with
/// the offset of ``timeZone``; a sample matched to several events lists tasks and occurrences in the same
/// order, joined with `;`. Fields containing a comma, quote, CR or LF are quoted, quotes doubled.
public final class CSVWriter {
    public static let columns = [
        "id", "type", "value", "unit", "start", "end", "source", "device", "transmitted_value", "transmitted_unit",
        "task", "occurrence", "comparator", "interpretation", "status", "patient", "aggregate_count", "aggregate_min",
        "aggregate_max",
    ]

    public let timeZone: TimeZone
    private let sink: ExportSink
    private var formatter: ZoneFormatter
    private var summary = ExportSummary()
    private var started = false
    private var finished = false

    public init(timeZone: TimeZone = .current, sink: @escaping ExportSink) {
        self.timeZone = timeZone
        self.sink = sink
        self.formatter = ZoneFormatter(zone: timeZone)
    }

    /// Adds one row.
    /// - Throws: ``ExportError`` after `finish()`, or what the sink throws.
    public func write(_ record: ExportRecord) throws {
        guard !finished else { throw ExportError.finished("CSV writer") }
        try startIfNeeded()
        let sample = record.sample
        guard !sample.isQuarantined, !record.retracted else {
            summary.records += 1
            summary.skipped[sample.type, default: 0] += 1
            return
        }
        var row = ""
        row.reserveCapacity(256)
        if record.aggregate == nil { row += UUIDText.lowercase(sample.id) }
        row += ","
        row += sample.type.rawValue
        row += ","
        row += Self.number(sample.value)
        row += ","
        Self.appendField(sample.unit.rawValue, to: &row)
        row += ","
        row += formatter.format(sample.start)
        row += ","
        row += formatter.format(sample.end)
        row += ","
        row += sample.source.kind.rawValue
        row += ","
        if let device = sample.source.device { Self.appendField(device.key, to: &row) }
        row += ","
        row += Self.number(sample.transmittedValue)
        row += ","
        Self.appendField(sample.transmittedUnit.rawValue, to: &row)
        row += ","
        Self.appendField(record.matches.map(\.task).joined(separator: ";"), to: &row)
        row += ","
        row += record.matches.map { String($0.occurrence) }.joined(separator: ";")
        row += ","
        row += sample.comparator?.rawValue ?? ""
        row += ","
        row += sample.comparator?.label ?? ""
        row += ","
        Self.appendField(SampleScreening.flags(of: sample).joined(separator: ";"), to: &row)
        row += ","
        if let patient = record.patient { Self.appendField(patient, to: &row) }
        row += ","
        if let aggregate = record.aggregate {
            row += "\(aggregate.count),\(Self.number(aggregate.min)),\(Self.number(aggregate.max))"
        } else {
            row += ",,"
        }
        row += "\r\n"
        summary.records += 1
        summary.exported += 1
        summary.resources += 1
        try sink(row)
    }

    /// Writes the header if no row was written, and ends the export.
    public func finish() throws -> ExportSummary {
        guard !finished else { throw ExportError.finished("CSV writer") }
        try startIfNeeded()
        finished = true
        return summary
    }

    private func startIfNeeded() throws {
        guard !started else { return }
        started = true
        try sink(Self.columns.joined(separator: ",") + "\r\n")
    }

    /// Shortest round-trip text; empty for a value that is not finite.
    static func number(_ value: Double) -> String {
        value.isFinite ? value.description : ""
    }

    /// Appends `text`, quoted when RFC 4180 requires it.
    static func appendField(_ text: String, to out: inout String) {
        var needsQuotes = false
        for byte in text.utf8 where byte == 0x2C || byte == 0x22 || byte == 0x0D || byte == 0x0A {
            needsQuotes = true
            break
        }
        guard needsQuotes else {
            out += text
            return
        }
        out += "\""
        for character in text {
            if character == "\"" { out += "\"\"" } else { out.append(character) }
        }
        out += "\""
    }
}
