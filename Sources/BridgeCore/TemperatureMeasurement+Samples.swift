import BridgeFoundation
public import GATTDecoding

extension TemperatureMeasurement: SampleProducing {
    /// One bodyTemperature sample in °C (converted from °F when sent so), none for a special value (NaN,
    /// NRes, ±INF, reserved). The measurement site, when the payload names it, goes into
    /// `metadata["temperatureType"]`.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [QuantitySample]) {
        guard let value = temperature.doubleValue else { return }
        if let temperatureType { context.metadata["temperatureType"] = temperatureType.description }
        guard
            let sample = context.sample(
                .bodyTemperature,
                value: value,
                unit: isFahrenheit ? .fahrenheit : .celsius,
                deviceTime: timeStamp
            )
        else { return }
        samples.append(sample)
    }
}
