public import GATTDecoding

extension MiBodyCompositionScale2: SampleProducing {
    /// bodyMass from a final frame (stabilised, load not removed, weight > 0), and bodyImpedance (Ω) from a
    /// final frame whose impedance-valid bit is set and whose impedance is not 0. Stamped with the frame's time.
    /// Nothing in object mode (control 0 bit 2): the scale weighed a thing, not the patient.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        guard isFinal, !isObjectMode else { return }
        let start = context.start(for: timeStamp)
        if let sample = context.sample(
            .bodyMass,
            value: weight,
            unit: weightUnit.healthUnit,
            deviceTime: timeStamp,
            start: start
        ) {
            samples.append(sample)
        }
        if isImpedanceValid, impedance > 0,
            let sample = context.sample(
                .bodyImpedance,
                value: Double(impedance),
                unit: .ohm,
                deviceTime: timeStamp,
                start: start
            )
        {
            samples.append(sample)
        }
    }
}
