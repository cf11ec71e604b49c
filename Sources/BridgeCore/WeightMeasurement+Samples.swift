public import GATTDecoding

extension WeightMeasurement: SampleProducing {
    /// Per user ID (none, 0…255) and fields present (imperial, BMI, height): the user metadata with the steps
    /// 0.005 kg or 0.01 lb, BMI 0.1, height 0.001 m or 0.1 in.
    static let metadataTable: [[String: String]] = (0..<257).flatMap { user in
        (0..<8).map { fields in
            var metadata = UserMetadata.metadata(for: user == 0 ? nil : UInt8(user - 1))
            let imperial = fields & 4 != 0
            metadata["resolution.bodyMass"] = imperial ? "0.01" : "0.005"
            if fields & 2 != 0 { metadata["resolution.bodyMassIndex"] = "0.1" }
            if fields & 1 != 0 { metadata["resolution.height"] = imperial ? "0.1" : "0.001" }
            return metadata
        }
    }

    /// bodyMass (unless unsuccessful), bodyMassIndex and height (when present).
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        // User ID and the spec's steps (SampleResolution), from a table built once: a weigh-in builds no dictionary.
        let user = userID.map { Int($0) + 1 } ?? 0
        let fields = (isImperial ? 4 : 0) + (bmi != nil ? 2 : 0) + (height != nil ? 1 : 0)
        context.metadata = Self.metadataTable[user * 8 + fields]
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
