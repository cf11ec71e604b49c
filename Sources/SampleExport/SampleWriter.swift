import BridgeCore
public import Foundation

/// A streaming export: records in one by one through `write(_:)`, then `finish()` once.
public protocol SampleWriter: AnyObject {
    func write(_ record: ExportRecord) throws
    func finish() throws -> ExportSummary
}

extension FHIRBundleWriter: SampleWriter {}
extension CSVWriter: SampleWriter {}
extension JSONLinesWriter: SampleWriter {}

/// The export formats.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// A FHIR R4 Bundle of vital-signs Observations (``FHIRBundleWriter``).
    case fhir
    /// RFC 4180 CSV, one row per sample (``CSVWriter``).
    case csv
    /// JSON Lines, one sample object per line (``JSONLinesWriter``).
    case jsonl

    /// A writer for this format.
    /// - Parameters:
    ///   - fhir: options for the FHIR bundle; its time zone is replaced by `timeZone`.
    ///   - timeZone: zone for every written time.
    ///   - sink: receives the text.
    public func makeWriter(
        fhir: FHIRBundleWriter.Options = FHIRBundleWriter.Options(),
        timeZone: TimeZone,
        sink: @escaping ExportSink
    ) -> any SampleWriter {
        switch self {
        case .fhir:
            var options = fhir
            options.timeZone = timeZone
            return FHIRBundleWriter(options: options, sink: sink)
        case .csv: return CSVWriter(timeZone: timeZone, sink: sink)
        case .jsonl: return JSONLinesWriter(timeZone: timeZone, sink: sink)
        }
    }
}
