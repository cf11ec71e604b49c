import BridgeFoundation
public import GATTDecoding

extension TemperatureMeasurement: SampleProducing {
    /// One bodyTemperature sample in °C (converted from °F when sent so); none for NaN, NRes or reserved.
    /// −INF/+INF (the thermometer's LO/HI) give a sample with comparator `<`/`>` and value −∞/+∞ (the pipeline
    /// puts the profile's `measurementRange` limit there). The measurement site, when the payload names it,
    /// goes into `metadata["temperatureType"]`.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        if let temperatureType { context.metadata["temperatureType"] = temperatureType.description }
        context.metadata["resolution.bodyTemperature"] = SampleResolution.text(of: temperature)
        let unit: HealthUnit = isFahrenheit ? .fahrenheit : .celsius
        if let sample = context.sample(.bodyTemperature, reading: temperature, unit: unit, deviceTime: timeStamp) {
            samples.append(sample)
        }
    }
}
