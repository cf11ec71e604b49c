import Foundation

/// A stored sample with where its row is and what changing it rewrites: what
/// ``SampleRowReader/rows(_:where:arguments:suffix:)`` reads for single samples, deletions, releases, routing and
/// retention.
struct StoredSampleRow {
    /// The sample, as every read of the store returns it.
    var stored: StoredSample
    /// The row's primary key.
    var key: SampleTable.RowKey
    /// `sampleRow.state`: the deleted, quarantined and inbox bits (0: a usable live sample).
    var state: Int64
    /// `sampleRow.detail`, parsed.
    var detail: SampleDetail
    /// `sampleRow.series`: the `sampleSeries` row (unit, source, device) the sample shares with others.
    var series: Int64

    var id: UUID { stored.id }
}
