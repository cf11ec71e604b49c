public import GATTDecoding

extension WeightMeasurement: SampleProducing {
    /// bodyMass (unless unsuccessful), bodyMassIndex and height (when present).
    public func appendSamples(in context: consuming SampleContext, to samples: inout [QuantitySample]) {
        context.metadata = UserMetadata.metadata(for: userID)
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
