import BridgeFoundation
public import GATTDecoding

extension PLXSpotCheckMeasurement: SampleProducing {
    /// oxygenSaturation (%) and heartRate (/min), each only when finite. Nothing when the measurement status
    /// marks the reading as not a final patient reading (ongoing, early estimate, demonstration, testing). A
    /// reading the status calls unavailable, questionable or invalid is made, with the status in its metadata,
    /// and quarantined by the pipeline's safety stage (kept, never used). The timestamp is used unless the device says its clock is not set; then the
    /// receive time is.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        PLXSampling.append(
            spo2: spo2,
            pulseRate: pulseRate,
            status: status,
            deviceTime: isDeviceClockNotSet ? nil : timeStamp,
            kind: "spot-check",
            context: context,
            to: &samples
        )
    }
}

/// Normalisation shared by the two PLX measurements.
enum PLXSampling {
    /// Readings that are not final patient data: never samples (like intermediate values).
    static let notFinal: PLXMeasurementStatus = [
        .measurementOngoing, .earlyEstimatedData, .dataForDemonstration, .dataForTesting,
    ]

    static func append(
        spo2: SFloat,
        pulseRate: SFloat,
        status: PLXStatusFields,
        deviceTime: DateTime?,
        kind: String,
        context: consuming SampleContext,
        to samples: inout [SampleDraft]
    ) {
        if let measurementStatus = status.measurementStatus, !measurementStatus.isDisjoint(with: notFinal) { return }
        var metadata = ["measurement": kind]
        if let measurementStatus = status.measurementStatus, !measurementStatus.isEmpty {
            metadata["measurementStatus"] = measurementStatus.names.joined(separator: ", ")
        }
        if let deviceAndSensorStatus = status.deviceAndSensorStatus, !deviceAndSensorStatus.isEmpty {
            metadata["deviceAndSensorStatus"] = deviceAndSensorStatus.names.joined(separator: ", ")
        }
        if let index = status.pulseAmplitudeIndex?.doubleValue { metadata["pulseAmplitudeIndex"] = "\(index) %" }
        metadata["resolution.oxygenSaturation"] = SampleResolution.text(of: spo2)
        metadata["resolution.heartRate"] = SampleResolution.text(of: pulseRate)
        context.metadata = metadata
        let start = context.start(for: deviceTime)
        let quantities: [(QuantityType, SFloat, HealthUnit)] = [
            (.oxygenSaturation, spo2, .percent), (.heartRate, pulseRate, .perMinute),
        ]
        for (type, reading, unit) in quantities {
            if let value = reading.doubleValue,
                let sample = context.sample(type, value: value, unit: unit, deviceTime: deviceTime, start: start)
            {
                samples.append(sample)
            }
        }
    }
}
