public import GATTDecoding

extension TemperatureMeasurement: SampleProducing {
    /// One bodyTemperature sample in °C (converted from °F when sent so), none for a special value (NaN,
    /// NRes, ±INF, reserved). The measurement site, when the payload names it, goes into
    /// `metadata["temperatureType"]`.
    public func samples(in context: SampleContext) -> [QuantitySample] {
        guard let value = temperature.doubleValue else { return [] }
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
        else { return [] }
        return [sample]
    }
}
