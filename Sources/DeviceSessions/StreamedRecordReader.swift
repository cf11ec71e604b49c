public import BridgeCore
public import BridgeFoundation
public import GATTDecoding

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
    /// Sees what the bridge wrote to one of its characteristics (the request the next values answer, for a
    /// protocol whose responses do not say what they answer). The default ignores it.
    mutating func wrote(_ write: CharacteristicWrite)
}

extension StreamedRecordReader {
    public mutating func wrote(_ write: CharacteristicWrite) {}
}

/// What a ``StreamedRecordReader`` made of one value.
public struct StreamedRecords: Sendable {
    public var samples: [SampleDraft] = []
    /// Records or packets that could not be used, each saying what and where.
    public var problems: [String] = []
    /// Values refused that cost nothing (a damaged response the session asks for again), each saying why.
    public var warnings: [String] = []
    /// Complete records read (empty slots not counted).
    public var records = 0
    /// The device clock a value reported (a wall-clock time in the device's zone), for the session's clock offset.
    public var deviceClock: DateTime?

    public init(samples: [SampleDraft] = [], problems: [String] = [], records: Int = 0) {
        self.samples = samples
        self.problems = problems
        self.records = records
    }
}
