/// A FHIR `Reference.reference` as `export --subject` takes it: `Patient/123`, a full URL ending in
/// `Patient/123`, or a `urn:uuid:` of an entry in the same bundle.
///
/// - SeeAlso: FHIR R4 §2.3.0 "References" (relative `[type]/[id]`, id `[A-Za-z0-9\-\.]{1,64}`).
public enum FHIRReference {
    /// The resource types a vital-signs Observation's subject may be (R4 vitalsigns profile: Patient; the base
    /// Observation also allows Group, Device and Location).
    public static let subjectTypes: Set<String> = ["Patient", "Group", "Device", "Location"]

    /// Why `text` is not a subject reference, or nil when it is one.
    public static func problem(withSubject text: String) -> String? {
        if text.hasPrefix("urn:uuid:") {
            let uuid = text.dropFirst("urn:uuid:".count)
            return uuid.count == 36 && uuid.allSatisfy({ $0.isHexDigit || $0 == "-" })
                ? nil : "'\(text)' is not a urn:uuid: followed by a UUID"
        }
        var path = Substring(text)
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 5 else { return "'\(text)' is a URL without [type]/[id] at its end" }
            path = parts[parts.count - 2] + "/" + parts[parts.count - 1]
        }
        let pieces = path.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2 else {
            return "'\(text)' is not a FHIR reference: write [type]/[id], e.g. Patient/123"
        }
        let (type, id) = (String(pieces[0]), pieces[1])
        guard subjectTypes.contains(type) else {
            return "'\(type)' cannot be an Observation's subject: use Patient/[id] (or Group, Device, Location)"
        }
        guard (1...64).contains(id.count),
            id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        else {
            return "'\(id)' is not a FHIR id: 1–64 letters, digits, '-' or '.'"
        }
        return nil
    }
}
