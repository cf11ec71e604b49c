/// A characteristic whose value a device may split over several notifications or indications (Body Composition
/// Measurement, flags bit 12: two packets; GHS health observations: any number of segments): the characteristic
/// knows how to recognise a first packet and merge the next one into it, so the pipeline only keeps the packets
/// so far until the value is whole (a merge that still ``continues(_:)`` waits for the next packet).
public protocol MultiPacketPayload: GATTPayload {
    /// True when `bytes` is the first packet of a value whose continuation follows.
    static func continues(_ bytes: [UInt8]) -> Bool
    /// One self-contained value made from a first packet and its continuation.
    /// - Throws: a positioned ``GATTDecodingError`` when either packet is shorter than its flags say.
    static func merge(_ first: [UInt8], _ second: [UInt8]) throws(GATTDecodingError) -> [UInt8]
    /// The whole value as the pipeline decodes and keeps it; by default the bytes themselves. GHS clears the
    /// rolling segment counter, which differs each time the same record is sent.
    static func complete(_ bytes: [UInt8]) -> [UInt8]
}

extension MultiPacketPayload {
    public static func complete(_ bytes: [UInt8]) -> [UInt8] { bytes }
}
