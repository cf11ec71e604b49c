public import GATTDecoding

extension WeightMeasurement: SampleProducing {
    /// bodyMass (unless unsuccessful), bodyMassIndex and height (when present).
    public func appendSamples(in context: consuming SampleContext, to samples: inout [QuantitySample]) {
        var metadata = UserMetadata.metadata(for: userID)
        // The spec's steps: 0.005 kg or 0.01 lb, BMI 0.1, height 0.001 m or 0.1 in.
        metadata[SampleResolution.key(.bodyMass)] = isImperial ? "0.01" : "0.005"
        if bmi != nil { metadata[SampleResolution.key(.bodyMassIndex)] = "0.1" }
        if height != nil { metadata[SampleResolution.key(.height)] = isImperial ? "0.1" : "0.001" }
        context.metadata = metadata
        let start = context.start(for: timeStamp)
        let massUnit: HealthUnit = isImperial ? .pound : .kilogram
        if let weight,
            let sample = context.sample(
                .bodyMass,
                value: weight,
                unit: massUnit,
                deviceTime: timeStamp,
                start: start
            )
        {
            samples.append(sample)
        }
        if !isUnsuccessful {
            if let bmi,
                let sample = context.sample(
                    .bodyMassIndex,
                    value: bmi,
                    unit: .kilogramPerSquareMetre,
                    deviceTime: timeStamp,
                    start: start
                )
            {
                samples.append(sample)
            }
            if let height,
                let sample = context.sample(
                    .height,
                    value: height,
                    unit: isImperial ? .inch : .metre,
                    deviceTime: timeStamp,
                    start: start
                )
            {
                samples.append(sample)
            }
        }
    }
}
