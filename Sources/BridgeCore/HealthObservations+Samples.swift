public import GATTDecoding

extension HealthObservations where Self: SampleProducing {
    /// The observation's samples (``HealthObservation``), with the MDC codes (and a stored observation's record
    /// number) in their metadata.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        var result = HealthObservation.Sampling()
        observation.sampling(in: context, record: record, into: &result)
        samples += result.samples
    }

    /// Observations that give no sample because CareBridge does not map their code or unit.
    public var unmappedValues: [String] {
        var result = HealthObservation.Sampling()
        observation.sampling(in: HealthObservation.probe, record: record, into: &result)
        return result.unmapped
    }
}

extension LiveHealthObservations: SampleProducing {}
extension StoredHealthObservations: SampleProducing {}
