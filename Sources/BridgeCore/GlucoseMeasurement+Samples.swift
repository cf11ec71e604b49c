import BridgeFoundation
public import GATTDecoding

extension GlucoseMeasurement: SampleProducing {
    /// One bloodGlucose sample in mg/dL, stamped with the user-facing time (Base Time + Time Offset).
    ///
    /// kg/L × 100 000 and mol/L × 1000 (→ mmol/L) are applied to the SFLOAT's mantissa and exponent directly,
    /// so 95 × 10⁻⁵ kg/L is exactly 95 mg/dL; mmol/L → mg/dL then uses the molar mass of glucose (180.156 g/mol).
    /// No sample without a concentration, for a special value, or for a control-solution test (type 10 or
    /// location 4). Sequence number, type, location, sensor status and the base time go into the metadata.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [QuantitySample]) {
        guard let concentration, let transmitted = concentration.doubleValue, !isControlSolution else { return }
        let milligramsPerDecilitre: Double?
        if isMolePerLitre {
            milligramsPerDecilitre = concentration.doubleValue(timesPowerOfTen: 3)
                .flatMap { HealthUnit.millimolePerLitre.convert($0, to: .milligramPerDecilitre) }
        } else {
            milligramsPerDecilitre = concentration.doubleValue(timesPowerOfTen: 5)
        }
        guard let milligramsPerDecilitre else { return }
        var metadata: [String: String] = [
            "sequenceNumber": String(sequenceNumber),
            "baseTime": baseTime.isUnknown ? "unknown" : baseTime.description,
        ]
        if let timeOffset { metadata["timeOffsetMinutes"] = String(timeOffset) }
        if let sampleTypeName { metadata["sampleType"] = sampleTypeName }
        if let sampleLocationName { metadata["sampleLocation"] = sampleLocationName }
        if sensorStatus != nil {
            metadata["sensorStatus"] = sensorStatusNames.isEmpty ? "none" : sensorStatusNames.joined(separator: ", ")
        }
        context.metadata = metadata
        guard
            var sample = context.sample(
                .bloodGlucose,
                value: transmitted,
                unit: isMolePerLitre ? .molePerLitre : .kilogramPerLitre,
                deviceTime: userFacingTime
            )
        else { return }
        sample.value = milligramsPerDecilitre
        samples.append(sample)
    }
}
