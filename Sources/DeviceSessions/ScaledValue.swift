/// A raw integer read from a device made a number: raw × scale + offset, without the binary noise a decimal scale
/// leaves in the last digits (7235 × 0.01 is 72.35, not 72.35000000000001). The frame language and the Omron record
/// layouts both scale this way.
public enum ScaledValue {
    public static func of(_ raw: Double, scale: Double, offset: Double = 0) -> Double {
        let value = raw * scale + offset
        guard value.isFinite else { return value }
        guard abs(value) < 1e6 else { return value }
        return (value * 1e9).rounded() / 1e9
    }
}
