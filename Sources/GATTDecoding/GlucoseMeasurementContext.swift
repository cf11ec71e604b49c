public import BridgeFoundation

/// Glucose Measurement Context (0x2A34): what the user noted about a glucose record (meal, carbohydrates,
/// exercise, medication, HbA1c). It follows the Glucose Measurement with the same sequence number.
///
/// Flags (all eight bits defined): bit 0 Carbohydrate ID + Carbohydrate, bit 1 Meal, bit 2 Tester-Health,
/// bit 3 Exercise Duration + Intensity, bit 4 Medication ID + Medication, bit 5 medication unit (0 kg, 1 L),
/// bit 6 HbA1c, bit 7 Extended Flags. Sequence Number always follows the flags, then Extended Flags (bit 7),
/// then the gated fields in bit order.
/// - SeeAlso: Glucose Service 1.0, GATT Specification Supplement §3.Glucose Measurement Context;
///   `gatt-reference.md` §9.2.
public struct GlucoseMeasurementContext: GATTPayload, Hashable {
    public static let identifier = "glucose-measurement-context"
    public static let name = "Glucose Measurement Context"
    public static let source = PayloadSource.characteristic(.glucoseMeasurementContext)

    public var flags: UInt8
    /// Matches the Glucose Measurement this context belongs to.
    public var sequenceNumber: UInt16
    /// Extended Flags (contents RFU), shown as sent.
    public var extendedFlags: UInt8?
    /// 1 breakfast, 2 lunch, 3 dinner, 4 snack, 5 drink, 6 supper, 7 brunch.
    public var carbohydrateID: UInt8?
    /// Carbohydrate in kg.
    public var carbohydrate: SFloat?
    /// 1 preprandial, 2 postprandial, 3 fasting, 4 casual, 5 bedtime.
    public var meal: UInt8?
    /// Tester (low nibble) and health (high nibble), as sent.
    public var testerHealth: UInt8?
    /// Exercise duration in seconds; 0xFFFF means overrun.
    public var exerciseDuration: UInt16?
    /// Exercise intensity in %.
    public var exerciseIntensity: UInt8?
    /// 1 rapid-acting, 2 short-acting, 3 intermediate-acting, 4 long-acting insulin, 5 pre-mixed insulin.
    public var medicationID: UInt8?
    /// Medication in kg or L (see ``medicationUnit``).
    public var medication: SFloat?
    /// HbA1c in %.
    public var hbA1c: SFloat?

    public init(from reader: inout ByteReader) throws(GATTDecodingError) {
        flags = try reader.read(UInt8.self, field: "Flags")
        sequenceNumber = try reader.read(UInt16.self, field: "Sequence Number")
        extendedFlags = flags & 0x80 != 0 ? try reader.read(UInt8.self, field: "Extended Flags") : nil
        if flags & 0x01 != 0 {
            carbohydrateID = try reader.read(UInt8.self, field: "Carbohydrate ID")
            carbohydrate = try reader.readSFloat(field: "Carbohydrate")
        }
        meal = flags & 0x02 != 0 ? try reader.read(UInt8.self, field: "Meal") : nil
        testerHealth = flags & 0x04 != 0 ? try reader.read(UInt8.self, field: "Tester-Health") : nil
        if flags & 0x08 != 0 {
            exerciseDuration = try reader.read(UInt16.self, field: "Exercise Duration")
            exerciseIntensity = try reader.read(UInt8.self, field: "Exercise Intensity")
        }
        if flags & 0x10 != 0 {
            medicationID = try reader.read(UInt8.self, field: "Medication ID")
            medication = try reader.readSFloat(field: "Medication")
        }
        hbA1c = flags & 0x40 != 0 ? try reader.readSFloat(field: "HbA1c") : nil
    }

    /// Medication unit bit: litres when set, kilograms when clear.
    public var medicationUnit: String { flags & 0x20 != 0 ? "L" : "kg" }
    /// Tester code (low nibble): 1 self, 2 health-care professional, 3 lab test, 15 not available.
    public var tester: Int? { testerHealth.map { Int($0 & 0x0F) } }
    /// Health code (high nibble): 1 minor issues … 5 no health issues, 15 not available.
    public var health: Int? { testerHealth.map { Int($0 >> 4) } }
    /// True when the exercise duration is 0xFFFF (longer than the field can hold).
    public var isExerciseDurationOverrun: Bool { exerciseDuration == 0xFFFF }

    public static let carbohydrateNames: [Int: String] = [
        1: "breakfast", 2: "lunch", 3: "dinner", 4: "snack", 5: "drink", 6: "supper", 7: "brunch",
    ]
    public static let mealNames: [Int: String] = [
        1: "preprandial", 2: "postprandial", 3: "fasting", 4: "casual", 5: "bedtime",
    ]
    public static let testerNames: [Int: String] = [
        1: "self", 2: "health care professional", 3: "lab test", 15: "not available",
    ]
    public static let healthNames: [Int: String] = [
        1: "minor health issues", 2: "major health issues", 3: "during menses", 4: "under stress",
        5: "no health issues", 15: "not available",
    ]
    public static let medicationNames: [Int: String] = [
        1: "rapid acting insulin", 2: "short acting insulin", 3: "intermediate acting insulin",
        4: "long acting insulin", 5: "pre-mixed insulin",
    ]

    public var fields: JSONObject {
        var fields: JSONObject = [
            "flags": .int(Int(flags)),
            "sequenceNumber": .int(Int(sequenceNumber)),
        ]
        if let extendedFlags { fields["extendedFlags"] = .int(Int(extendedFlags)) }
        if let carbohydrateID, let carbohydrate {
            fields["carbohydrateID"] = .int(Int(carbohydrateID))
            fields["carbohydrateName"] = .string(BitNames.code(Int(carbohydrateID), Self.carbohydrateNames))
            fields["carbohydrate"] = carbohydrate.field
            fields["carbohydrateUnit"] = .string("kg")
        }
        if let meal {
            fields["meal"] = .int(Int(meal))
            fields["mealName"] = .string(BitNames.code(Int(meal), Self.mealNames))
        }
        if let tester, let health {
            fields["tester"] = .int(tester)
            fields["testerName"] = .string(BitNames.code(tester, Self.testerNames))
            fields["health"] = .int(health)
            fields["healthName"] = .string(BitNames.code(health, Self.healthNames))
        }
        if let exerciseDuration, let exerciseIntensity {
            fields["exerciseDuration"] = isExerciseDurationOverrun ? .string("overrun") : .int(Int(exerciseDuration))
            fields["exerciseDurationUnit"] = .string("s")
            fields["exerciseIntensity"] = .int(Int(exerciseIntensity))
            fields["exerciseIntensityUnit"] = .string("%")
        }
        if let medicationID, let medication {
            fields["medicationID"] = .int(Int(medicationID))
            fields["medicationName"] = .string(BitNames.code(Int(medicationID), Self.medicationNames))
            fields["medication"] = medication.field
            fields["medicationUnit"] = .string(medicationUnit)
        }
        if let hbA1c {
            fields["hbA1c"] = hbA1c.field
            fields["hbA1cUnit"] = .string("%")
        }
        return fields
    }
}
