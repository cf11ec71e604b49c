public import GATTDecoding

extension TemperatureMeasurement: SampleProducing {
    /// One bodyTemperature sample in °C (converted from °F when sent so), none for a special value (NaN,
    /// NRes, ±INF, reserved). The measurement site, when the payload names it, goes into
    /// `metadata["temperatureType"]`.
    public func appendSamples(in context: SampleContext, to samples: inout [QuantitySample]) {
        guard let value = temperature.doubleValue else { return }
        var metadata: [String: String] = [:]
        if let temperatureType { metadata["temperatureType"] = temperatureType.description }
        guard
            let sample = context.sample(
                .bodyTemperature,
                value: value,
                unit: isFahrenheit ? .fahrenheit : .celsius,
                deviceTime: timeStamp,
                metadata: metadata
            )
        else { return }
        samples.append(sample)
    }
}
