public import BridgeCore

/// One field of a decoded frame: its raw integer (what conditions compare), its value, and why it has none.
public struct DecodedField: Sendable, Hashable {
    public var name: String
    /// The integer read (after `bits`, before `scale`, `offset` and `lookup`); nil for non-integer types.
    public var raw: Int?
    /// Nil when the device said "not measured" (`absent`) or the bytes are not a value (an IEEE-11073 NaN).
    public var value: FrameFieldValue?
    /// Set for a raw value listed in `outOfRange`: below (`<`) or above (`>`) what the device measures.
    public var comparator: ValueComparator?
    /// Why there is no value, for the pipeline's decode notes.
    public var note: String?

    public init(
        name: String,
        raw: Int? = nil,
        value: FrameFieldValue?,
        comparator: ValueComparator? = nil,
        note: String? = nil
    ) {
        self.name = name
        self.raw = raw
        self.value = value
        self.comparator = comparator
        self.note = note
    }
}
