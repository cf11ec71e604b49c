import BridgeFoundation
public import GATTDecoding

extension GlucoseMeasurement: SampleProducing {
    /// The sequence number when a Glucose Measurement Context follows (flags bit 4).
    public var followingContextSequence: UInt16? { contextFollows ? sequenceNumber : nil }

    /// One bloodGlucose sample in mg/dL, stamped with the user-facing time (Base Time + Time Offset).
    ///
    /// kg/L × 100 000 and mol/L × 1000 (→ mmol/L) are applied to the SFLOAT's mantissa and exponent directly,
    /// so 95 × 10⁻⁵ kg/L is exactly 95 mg/dL; mmol/L → mg/dL then uses the molar mass of glucose (180.156 g/mol).
    ///
    /// Out-of-range results are samples, never dropped: a concentration of −INF/+INF, or the sensor-status bit
    /// "result lower/higher than the device can process" (bits 6/5), gives a sample with comparator `<`/`>`
    /// (LO/HI) whose value is the concentration when it is finite (the meter's limit) and −∞/+∞ otherwise (the
    /// pipeline puts the profile's `measurementRange` limit there). No sample without a concentration (unless
    /// the status says LO/HI), for NaN/NRes/reserved, or for a control-solution test (type 10 or location 4).
    /// Sequence number, type, location, sensor status and the base time go into the metadata.
    public func appendSamples(in context: consuming SampleContext, to samples: inout [SampleDraft]) {
        guard !isControlSolution else { return }
        let comparator = outOfRangeComparator
        let transmitted: Double
        let milligramsPerDecilitre: Double
        if let value = concentration?.doubleValue {
            transmitted = value
            let converted: Double?
            if isMolePerLitre {
                converted = concentration?.doubleValue(timesPowerOfTen: 3)
                    .flatMap { HealthUnit.millimolePerLitre.convert($0, to: .milligramPerDecilitre) }
            } else {
                converted = concentration?.doubleValue(timesPowerOfTen: 5)
            }
            guard let converted else { return }
            milligramsPerDecilitre = converted
        } else if let comparator {
            transmitted = comparator.unboundedValue
            milligramsPerDecilitre = comparator.unboundedValue
        } else {
            return
        }
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
        metadata["resolution.bloodGlucose"] = concentration.flatMap(SampleResolution.text(of:))
        context.metadata = metadata
        let unit: HealthUnit = isMolePerLitre ? .molePerLitre : .kilogramPerLitre
        let start = context.start(for: userFacingTime)
        guard
            var sample = context.sample(
                .bloodGlucose,
                value: transmitted.isFinite ? transmitted : 0,
                unit: unit,
                deviceTime: userFacingTime,
                start: start
            )
        else { return }
        sample.value = milligramsPerDecilitre
        sample.transmittedValue = transmitted
        sample.comparator = comparator
        samples.append(sample)
    }
}

extension GlucoseMeasurement {
    /// Sensor Status Annunciation bit 5: result higher than the device can process (HI).
    public static let resultHigherBit: UInt16 = 1 << 5
    /// Sensor Status Annunciation bit 6: result lower than the device can process (LO).
    public static let resultLowerBit: UInt16 = 1 << 6

    /// `<` for a LO result (−INF, or status bit 6), `>` for a HI result (+INF, or status bit 5), else nil.
    public var outOfRangeComparator: ValueComparator? {
        if let special = concentration?.special, let comparator = ValueComparator(special) { return comparator }
        let status = sensorStatus ?? 0
        if status & Self.resultLowerBit != 0 { return .lessThan }
        if status & Self.resultHigherBit != 0 { return .greaterThan }
        return nil
    }
}
