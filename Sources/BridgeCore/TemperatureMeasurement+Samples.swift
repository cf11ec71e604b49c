import BridgeFoundation
public import GATTDecoding

extension TemperatureMeasurement: SampleProducing {
    /// One bodyTemperature sample in °C (converted from °F when sent so); none for NaN, NRes or reserved.
    /// −INF/+INF (the thermometer's LO/HI) give a sample with comparator `<`/`>` and value −∞/+∞ (the pipeline
    /// puts the profile's `measurementRange` limit there). The measurement site, when the payload names it,
    /// goes into `metadata["temperatureType"]`.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        let comparator = temperature.special.flatMap(ValueComparator.init)
        guard let value = temperature.doubleValue ?? comparator.map({ _ in 0 }) else { return }
        if let temperatureType { context.metadata["temperatureType"] = temperatureType.description }
        if temperature.doubleValue != nil {
            context.metadata["resolution.bodyTemperature"] = SampleResolution.text(
                exponent: temperature.exponent
            )
        }
        guard
            var sample = context.sample(
                .bodyTemperature,
                value: value,
                unit: isFahrenheit ? .fahrenheit : .celsius,
                deviceTime: timeStamp
            )
        else { return }
        if let comparator {
            sample.comparator = comparator
            sample.value = comparator.unboundedValue
            sample.transmittedValue = comparator.unboundedValue
        }
        samples.append(sample)
    }
}
