/// Joins the notifications of one Viatom response: the first carries the header whose length field says how many
/// bytes follow, and the rest are appended until the response is whole.
public struct ViatomResponseAssembler: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Forgets a partial response (a request is sent again).
    public mutating func reset() { pending = [] }

    /// Adds one notification; returns the response's bytes once they are all there (checked by
    /// ``ViatomPacket/init(response:)``, not here). Bytes that cannot start a response (no `55` first) and
    /// bytes past the announced length are returned at once, so the caller refuses them instead of waiting.
    public mutating func add(_ bytes: [UInt8]) -> [UInt8]? {
        if pending.isEmpty, bytes.first != 0x55 { return bytes }
        pending += bytes
        guard let length = ViatomPacket.responseLength(pending) else { return nil }
        guard pending.count >= length else { return nil }
        defer { pending = [] }
        return pending
    }
}
