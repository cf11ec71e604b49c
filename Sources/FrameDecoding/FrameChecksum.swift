import BridgeCore
public import BridgeFoundation
public import DeviceSessions

/// A frame's checksum: the ``Checksum`` of bytes `from`…`to` (inclusive; negative counts from the end), compared
/// with the byte(s) at `at`.
public struct FrameChecksum: Sendable, Hashable {
    public var kind: Checksum
    public var from: Int
    public var to: Int
    public var at: Int

    public init(kind: Checksum, from: Int = 0, to: Int = -2, at: Int = -1) {
        self.kind = kind
        self.from = from
        self.to = to
        self.at = at
    }

    /// Reads `{"kind": "sum8", "from": 0, "to": -2, "at": -1}` (from, to and at default to these).
    public init(json reader: JSONReader) throws(JSONReadError) {
        let members = try reader.object(allowing: ["kind", "from", "to", "at"], ignoringPrefix: "_")
        let kindReader = try members.required("kind")
        let text = try kindReader.string()
        guard let kind = Checksum(rawValue: text) else {
            throw kindReader.error(
                "'\(text)' is not a checksum (\(Checksum.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        self.init(
            kind: kind,
            from: try members["from"]?.integer(in: ValueLimits.signedOffsets) ?? 0,
            to: try members["to"]?.integer(in: ValueLimits.signedOffsets) ?? -2,
            at: try members["at"]?.integer(in: ValueLimits.signedOffsets) ?? -1
        )
    }

    /// Nil when the checksum holds, else what differs.
    public func problem(in bytes: [UInt8]) -> String? {
        // Positions outside the value (however large) become -1: no overflow on a checksum built in code.
        func index(_ position: Int) -> Int {
            guard position.magnitude <= UInt(bytes.count) else { return -1 }
            return position >= 0 ? position : bytes.count + position
        }
        let start = index(from)
        let end = index(to)
        let width = kind.bytes(of: [UInt8]()).count
        let place = index(at)
        guard start >= 0, start <= end, end < bytes.count, place >= 0, place <= bytes.count - width else {
            return "\(kind) over bytes \(from)…\(to) at \(at) does not fit a value of \(bytes.count) bytes"
        }
        let expected = kind.bytes(of: bytes[start...end])
        let actual = Array(bytes[place..<place + width])
        guard expected != actual else { return nil }
        func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes).uppercased() }
        return "\(kind) checksum is \(hex(actual)), computed \(hex(expected)) over bytes \(start)…\(end)"
    }
}
