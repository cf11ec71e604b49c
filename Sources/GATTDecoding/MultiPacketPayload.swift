/// A characteristic whose value a device may split over two notifications or indications (Body Composition
/// Measurement, flags bit 12): the characteristic knows how to recognise a first packet and merge the pair, so
/// the pipeline only keeps the first packet until its continuation arrives.
public protocol MultiPacketPayload: GATTPayload {
    /// True when `bytes` is the first packet of a value whose continuation follows.
    static func continues(_ bytes: [UInt8]) -> Bool
    /// One self-contained value made from a first packet and its continuation.
    /// - Throws: a positioned ``GATTDecodingError`` when either packet is shorter than its flags say.
    static func merge(_ first: [UInt8], _ second: [UInt8]) throws(GATTDecodingError) -> [UInt8]
}
