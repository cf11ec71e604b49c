public import GATTDecoding

extension MiScaleV1: SampleProducing {
    /// bodyMass from a final frame only (stabilised, load not removed, weight > 0), never in object mode (the
    /// scale weighed a thing, not the patient), converted from kg, lb
    /// (× 0.45359237) or jin (× 0.5), stamped with the frame's time stamp.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        guard isFinal, !isObjectMode,
            let sample = context.sample(.bodyMass, value: weight, unit: weightUnit.healthUnit, deviceTime: timeStamp)
        else { return }
        samples.append(sample)
    }
}

extension MiScaleV1.WeightUnit {
    /// The unit for normalisation.
    public var healthUnit: HealthUnit {
        switch self {
        case .kilogram: .kilogram
        case .pound: .pound
        case .jin: .jin
        }
    }
}
