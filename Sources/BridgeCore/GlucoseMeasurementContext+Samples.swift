public import GATTDecoding

/// A value whose fields annotate the samples of another value (Glucose Measurement Context for the measurement
/// with the same sequence number): the `context` role of a profile.
public protocol SampleAnnotating: SequencedRecord {
    /// Metadata for the annotated samples: field name → text, as stored and exported.
    var sampleMetadata: [String: String] { get }
}

extension GlucoseMeasurementContext: SampleAnnotating {
    /// Carbohydrate, meal, tester/health, exercise, medication and HbA1c, each with its code, name and unit
    /// (the keys of ``fields``; flags and the sequence number left out). Special SFLOAT values by name.
    public var sampleMetadata: [String: String] {
        var metadata: [String: String] = [:]
        func text(_ value: SFloat) -> String {
            value.special?.rawValue ?? String(value.doubleValue ?? .nan)
        }
        if let carbohydrateID, let carbohydrate {
            metadata["carbohydrateID"] = String(carbohydrateID)
            metadata["carbohydrateName"] = Self.carbohydrateNames[Int(carbohydrateID)] ?? "reserved"
            metadata["carbohydrate"] = text(carbohydrate)
            metadata["carbohydrateUnit"] = "kg"
        }
        if let meal {
            metadata["meal"] = String(meal)
            metadata["mealName"] = Self.mealNames[Int(meal)] ?? "reserved"
        }
        if let tester, let health {
            metadata["tester"] = String(tester)
            metadata["testerName"] = Self.testerNames[tester] ?? "reserved"
            metadata["health"] = String(health)
            metadata["healthName"] = Self.healthNames[health] ?? "reserved"
        }
        if let exerciseDuration, let exerciseIntensity {
            metadata["exerciseDuration"] = isExerciseDurationOverrun ? "overrun" : String(exerciseDuration)
            metadata["exerciseDurationUnit"] = "s"
            metadata["exerciseIntensity"] = String(exerciseIntensity)
            metadata["exerciseIntensityUnit"] = "%"
        }
        if let medicationID, let medication {
            metadata["medicationID"] = String(medicationID)
            metadata["medicationName"] = Self.medicationNames[Int(medicationID)] ?? "reserved"
            metadata["medication"] = text(medication)
            metadata["medicationUnit"] = medicationUnit
        }
        if let hbA1c {
            metadata["hbA1c"] = text(hbA1c)
            metadata["hbA1cUnit"] = "%"
        }
        return metadata
    }
}
