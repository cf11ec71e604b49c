public import BridgeFoundation

/// A frame's `merge`: its samples wait up to ``window`` seconds for the frame named ``with`` (with the same value
/// of field ``by`` when given), whose fields its samples may then use as `with.field`.
public struct FrameMerge: Sendable, Hashable {
    public var with: String
    public var window: Double
    public var by: String?

    public init(with: String, window: Double, by: String? = nil) {
        self.with = with
        self.window = window
        self.by = by
    }

    public init(json reader: JSONReader) throws(JSONReadError) {
        let members = try reader.object(allowing: ["with", "window", "by"], ignoringPrefix: "_")
        let withReader = try members.required("with")
        with = try withReader.string()
        guard Frame.isFrameName(with) else { throw withReader.error("'\(with)' is not a frame name") }
        let windowReader = try members.required("window")
        window = try windowReader.number()
        guard window > 0, window <= 600 else { throw windowReader.error("expected 0 < window ≤ 600 seconds") }
        by = try members["by"]?.string()
    }
}
