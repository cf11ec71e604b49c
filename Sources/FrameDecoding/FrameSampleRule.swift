public import BridgeCore
public import BridgeFoundation
public import DeviceSessions

/// One `samples` entry of a frame: which field becomes a sample of which type, in which unit, when.
public struct FrameSampleRule: Sendable, Hashable {
    public var type: QuantityType
    public var field: FrameFieldReference
    /// The unit the field's value is in; nil when ``unitField`` names a looked-up field.
    public var unit: HealthUnit?
    /// A field whose lookup gives the unit symbol (`kg`, `lb`, …).
    public var unitField: FrameFieldReference?
    /// All must hold for the sample to be made.
    public var when: [SessionCondition] = []

    public init(type: QuantityType, field: FrameFieldReference, unit: HealthUnit?) {
        self.type = type
        self.field = field
        self.unit = unit
    }

    /// Reads `{"type": "bodyMass", "field": "weight", "unit": "kg", "when": ["stable"]}`.
    public init(json reader: JSONReader) throws(JSONReadError) {
        let members = try reader.object(allowing: ["type", "field", "unit", "unitField", "when"], ignoringPrefix: "_")
        let typeReader = try members.required("type")
        let typeText = try typeReader.string()
        guard let type = QuantityType(rawValue: typeText) else {
            throw typeReader.error(
                "'\(typeText)' is not a quantity type (\(QuantityType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        self.type = type
        field = try Self.reference(try members.required("field"))
        unitField = try members["unitField"].map { reader throws(JSONReadError) in try Self.reference(reader) }
        if let unitReader = members["unit"] {
            let text = try unitReader.string()
            guard let unit = HealthUnit(parsing: text) else { throw unitReader.error("unknown unit '\(text)'") }
            guard unit.convert(1, to: type.canonicalUnit) != nil else {
                throw unitReader.error("\(text) cannot express \(type.title) (canonical \(type.canonicalUnit))")
            }
            self.unit = unit
        }
        if unit == nil, unitField == nil { throw members.error("unit", "give unit or unitField") }
        if unit != nil, unitField != nil { throw members.error("unitField", "give unit or unitField, not both") }
        when = try Frame.conditions(members["when"])
    }

    static func reference(_ reader: JSONReader) throws(JSONReadError) -> FrameFieldReference {
        let text = try reader.string()
        guard let reference = FrameFieldReference(text) else {
            throw reader.error("'\(text)' is not a field name (FIELD or FRAME.FIELD)")
        }
        return reference
    }
}
