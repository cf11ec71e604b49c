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
        metadata["resolution.bloodPressureSystolic"] = SampleResolution.text(of: systolic)
        metadata["resolution.bloodPressureDiastolic"] = SampleResolution.text(of: diastolic)
        metadata["resolution.meanArterialPressure"] = SampleResolution.text(of: meanArterialPressure)
        metadata["resolution.heartRate"] = pulseRate.flatMap(SampleResolution.text(of:))
        context.metadata = metadata
        let pressureUnit: HealthUnit = isKilopascal ? .kilopascal : .millimetreOfMercury
        let start = context.start(for: timeStamp)  // resolve the device time once
        func add(_ type: QuantityType, _ value: SFloat?, _ unit: HealthUnit) {
            guard let value,
                let sample = context.sample(type, reading: value, unit: unit, deviceTime: timeStamp, start: start)
            else { return }
            samples.append(sample)
        }
        add(.bloodPressureSystolic, systolic, pressureUnit)
        add(.bloodPressureDiastolic, diastolic, pressureUnit)
        add(.meanArterialPressure, meanArterialPressure, pressureUnit)
        add(.heartRate, pulseRate, .perMinute)
    }
}
