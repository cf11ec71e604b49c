public import GATTDecoding

extension PLXContinuousMeasurement: SampleProducing {
    /// oxygenSaturation (%) and heartRate (/min) from SpO2PR-Normal, each only when finite, stamped with the
    /// receive time (the characteristic has no timestamp). The Fast and Slow averages stay in the fields.
    /// Nothing for an ongoing, early-estimate, demonstration or test reading; an unavailable, questionable or
    /// invalid one is made and quarantined by the safety stage.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        PLXSampling.append(
            spo2: spo2,
            pulseRate: pulseRate,
            status: status,
            deviceTime: nil,
            kind: "continuous",
            context: context,
            to: &samples
        )
    }
}
