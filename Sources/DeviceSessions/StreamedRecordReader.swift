public import BridgeCore
public import BridgeFoundation
import GATTDecoding

/// A vendor protocol whose records are spread over several values (a memory-map download whose packets come in
/// pieces on several characteristics): fed every value of its characteristics in order, it gives the samples of
/// each record once the record is complete.
///
/// A device profile provides one (``DeviceProfile``'s record stream); the ingest pipeline keeps one per device
/// connection and never needs to know the protocol.
public protocol StreamedRecordReader: Sendable {
    /// Names the reader as a sample's decoder (``SampleSource/decoder``).
    var identifier: String { get }
    /// Whether values of `characteristic` belong to this reader (they then never reach a per-value decoder).
    func reads(_ characteristic: BluetoothUUID) -> Bool
    /// Reads one value; `context` carries the receive time, zone and source (its payload is replaced per record).
    mutating func read(_ value: CharacteristicValue, context: SampleContext) -> StreamedRecords
}

/// What a ``StreamedRecordReader`` made of one value.
public struct StreamedRecords: Sendable {
    public var samples: [SampleDraft] = []
    /// Records or packets that could not be used, each saying what and where.
    public var problems: [String] = []
    /// Complete records read (empty slots not counted).
    public var records = 0

    public init(samples: [SampleDraft] = [], problems: [String] = [], records: Int = 0) {
        self.samples = samples
        self.problems = problems
        self.records = records
    }
}
