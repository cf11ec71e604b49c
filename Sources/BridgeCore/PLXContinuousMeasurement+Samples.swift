public import GATTDecoding

extension PLXContinuousMeasurement: SampleProducing {
    /// oxygenSaturation (%) and heartRate (/min) from SpO2PR-Normal, each only when finite, stamped with the
    /// receive time (the characteristic has no timestamp). The Fast and Slow averages stay in the fields.
    /// Nothing when the measurement status marks the reading as not clinical.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [QuantitySample]) {
        PLXSampling.append(
            spo2: spo2,
            pulseRate: pulseRate,
            measurementStatus: measurementStatus,
            deviceAndSensorStatus: deviceAndSensorStatus,
            pulseAmplitudeIndex: pulseAmplitudeIndex,
            deviceTime: nil,
            kind: "continuous",
            context: context,
            to: &samples
        )
    }
}
