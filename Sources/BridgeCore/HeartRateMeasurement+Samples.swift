public import GATTDecoding

extension HeartRateMeasurement: SampleProducing {
    /// One heartRate sample, then one rrInterval sample per RR-Interval (transmitted in 1/1024 s, stored in
    /// ms), all stamped with the receive time; each RR sample's `index` is its position in the payload so
    /// their ids differ. Sensor contact and energy expended (kJ) go into the metadata of every sample.
    ///
    /// A heart rate of 0 (sent while the sensor warms up) yields no heartRate sample.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        // Shared by every sample of the payload; without Energy Expended (most notifications) it is a
        // prebuilt constant, so the hot path builds no dictionary.
        context.metadata = Self.contactMetadata(sensorContact)
        if let energyExpended { context.metadata["energyExpendedKJ"] = String(energyExpended) }
        if heartRate != 0,
            let sample = context.sample(.heartRate, value: Double(heartRate), unit: .perMinute)
        {
            samples.append(sample)
        }
        for (position, raw) in rrIntervals.enumerated() {
            if let sample = context.sample(
                .rrInterval,
                value: Double(raw),
                unit: .rrTick,
                index: position
            ) {
                samples.append(sample)
            }
        }
    }

    private static let notSupportedMetadata = ["sensorContact": SensorContact.notSupported.rawValue]
    private static let notDetectedMetadata = ["sensorContact": SensorContact.notDetected.rawValue]
    private static let detectedMetadata = ["sensorContact": SensorContact.detected.rawValue]

    private static func contactMetadata(_ contact: SensorContact) -> [String: String] {
        switch contact {
        case .notSupported: notSupportedMetadata
        case .notDetected: notDetectedMetadata
        case .detected: detectedMetadata
        }
    }
}
