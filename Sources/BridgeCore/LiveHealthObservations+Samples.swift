public import GATTDecoding

extension LiveHealthObservations: SampleProducing {
    /// The observation's samples (``HealthObservation``), MDC codes kept in their metadata.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        var result = HealthObservation.Sampling()
        observation.sampling(in: context, into: &result)
        samples += result.samples
    }

    /// Observations that give no sample because CareBridge does not map their code or unit.
    public var unmappedValues: [String] {
        var result = HealthObservation.Sampling()
        observation.sampling(in: HealthObservation.probe, into: &result)
        return result.unmapped
    }
}
