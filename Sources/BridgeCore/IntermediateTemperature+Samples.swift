public import GATTDecoding

extension IntermediateTemperature: SampleProducing {
    /// None: an intermediate temperature is never a final reading (`gatt-reference.md` §6.1).
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {}
}
