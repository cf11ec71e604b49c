public import GATTDecoding

extension IntermediateCuffPressure: SampleProducing {
    /// None: cuff pressure during inflation is live progress, never a reading (`gatt-reference.md` §8.2).
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {}
}
