import BridgeFoundation
public import GATTDecoding

extension BloodPressureMeasurement: SampleProducing {
    /// bloodPressureSystolic, bloodPressureDiastolic and meanArterialPressure in mm[Hg] (converted from kPa
    /// when sent so) and heartRate from the pulse rate; a special value (NaN, NRes, ±INF, reserved) gives no
    /// sample for that quantity, except −INF/+INF (below/above the cuff's range), which give a sample with comparator
    /// `<`/`>` and value −∞/+∞ (the pipeline puts the profile's `measurementRange` limit there). User ID and the measurement status conditions (comma-separated names, or
    /// `none`) go into the metadata.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        var metadata = UserMetadata.metadata(for: userID)
        if let measurementStatus {
            let conditions = measurementStatus.conditions
            metadata["measurementStatus"] = conditions.isEmpty ? "none" : conditions.joined(separator: ",")
        }
        if systolic.doubleValue != nil {
            metadata["resolution.bloodPressureSystolic"] = SampleResolution.text(exponent: systolic.exponent)
        }
        if diastolic.doubleValue != nil {
            metadata["resolution.bloodPressureDiastolic"] = SampleResolution.text(exponent: diastolic.exponent)
        }
        if meanArterialPressure.doubleValue != nil {
            metadata["resolution.meanArterialPressure"] = SampleResolution.text(
                exponent: meanArterialPressure.exponent
            )
        }
        if let pulseRate, pulseRate.doubleValue != nil {
            metadata["resolution.heartRate"] = SampleResolution.text(exponent: pulseRate.exponent)
        }
        context.metadata = metadata
        let pressureUnit: HealthUnit = isKilopascal ? .kilopascal : .millimetreOfMercury
        let start = context.start(for: timeStamp)  // resolve the device time once
        func add(_ type: QuantityType, _ value: SFloat?, _ unit: HealthUnit) {
            let comparator = value?.special.flatMap(ValueComparator.init)
            guard let number = value?.doubleValue ?? comparator.map({ _ in 0 }),
                var sample = context.sample(
                    type,
                    value: number,
                    unit: unit,
                    deviceTime: timeStamp,
                    start: start
                )
            else { return }
            if let comparator {
                sample.comparator = comparator
                sample.value = comparator.unboundedValue
                sample.transmittedValue = comparator.unboundedValue
            }
            samples.append(sample)
        }
        add(.bloodPressureSystolic, systolic, pressureUnit)
        add(.bloodPressureDiastolic, diastolic, pressureUnit)
        add(.meanArterialPressure, meanArterialPressure, pressureUnit)
        add(.heartRate, pulseRate, .perMinute)
    }
}
