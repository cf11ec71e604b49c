public import GATTDecoding

extension StoredHealthObservations: SampleProducing {
    /// The stored observation's samples (``HealthObservation``), with its record number and MDC codes in their
    /// metadata.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        var result = HealthObservation.Sampling()
        observation.sampling(in: context, record: recordNumber, into: &result)
        samples += result.samples
    }

    /// Observations that give no sample because CareBridge does not map their code or unit.
    public var unmappedValues: [String] {
        var result = HealthObservation.Sampling()
        observation.sampling(in: HealthObservation.probe, record: recordNumber, into: &result)
        return result.unmapped
    }
}
