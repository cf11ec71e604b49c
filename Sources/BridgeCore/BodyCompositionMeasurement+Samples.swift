public import GATTDecoding

extension BodyCompositionMeasurement: SampleProducing {
    /// bodyFatPercentage, basalEnergyBurned (kJ → kcal), muscleMass, leanBodyMass (the fat-free mass),
    /// bodyWaterMass, bodyImpedance, bodyMass and height, each when present.
    ///
    /// When the measurement was unsuccessful (Body Fat 0xFFFF) no body fat, and whatever else the payload carries
    /// (a weight sent anyway) gets the status `measurement unsuccessful`, which the safety stage quarantines:
    /// kept with its payload, never used. Nothing from a single packet of
    /// a multiple-packet measurement (flag bit 12): join the packets with ``BodyCompositionMeasurement/merged(with:)``
    /// first, so that partial measurements are never stored. Muscle percentage and soft lean mass have no
    /// quantity type; they stay in the fields.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        guard !isMultiplePacket else { return }
        var metadata = UserMetadata.metadata(for: userID)
        if isUnsuccessful { metadata["status"] = "measurement unsuccessful" }
        context.metadata = metadata
        let massUnit: HealthUnit = isImperial ? .pound : .kilogram
        let start = context.start(for: timeStamp)  // resolve the device time once
        func add(_ type: QuantityType, _ value: Double?, _ unit: HealthUnit) {
            guard let value,
                let sample = context.sample(
                    type,
                    value: value,
                    unit: unit,
                    deviceTime: timeStamp,
                    start: start
                )
            else { return }
            samples.append(sample)
        }
        add(.bodyFatPercentage, bodyFatPercentage, .percent)
        add(.basalEnergyBurned, basalMetabolism.map(Double.init), .kilojoule)
        add(.muscleMass, muscleMass, massUnit)
        add(.leanBodyMass, fatFreeMass, massUnit)
        add(.bodyWaterMass, bodyWaterMass, massUnit)
        add(.bodyImpedance, impedance, .ohm)
        add(.bodyMass, weight, massUnit)
        add(.height, height, isImperial ? .inch : .metre)
    }
}
