/// The bounds on what a profile may say about a characteristic value, checked when the profile is read: a BLE
/// attribute value holds at most 512 bytes (Core Specification Vol 3, Part F, 3.2.9), so an offset or length
/// beyond that names no byte, and bounding them keeps `offset + width` from overflowing when a value is decoded.
public enum ValueLimits {
    /// The longest value.
    public static let maximumLength = 512
    /// A byte offset from the start of a value.
    public static let offsets: ClosedRange<Int> = 0...(maximumLength - 1)
    /// A byte offset from the start (≥ 0) or from the end (-1 is the last byte).
    public static let signedOffsets: ClosedRange<Int> = -maximumLength...(maximumLength - 1)
    /// A length in bytes (a value's, a field's).
    public static let lengths: ClosedRange<Int> = 0...maximumLength
    /// The largest magnitude of a field's `scale` and `offset`: raw values (at most 2^64, or an IEEE-11073 FLOAT)
    /// scaled by it stay finite.
    public static let magnitude: Double = 1e9
    /// The largest magnitude of what a byte template adds to a variable (`{count+1:u16}`).
    public static let addend: ClosedRange<Int> = -0xFFFF_FFFF...0xFFFF_FFFF
}
