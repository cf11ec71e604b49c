import SampleExport
import Testing

@Suite struct FHIRReferenceTests {
    @Test(arguments: [
        "Patient/123", "Patient/a-b.c", "https://fhir.example.org/r4/Patient/123",
        "urn:uuid:5f0c1a52-3c1e-4f55-9d7c-2b8e1f0a9c11", "Group/ward-3",
    ])
    func acceptsSubjectReferences(text: String) {
        #expect(FHIRReference.problem(withSubject: text) == nil)
    }

    @Test(arguments: [
        ("123", "[type]/[id]"), ("patient/123", "cannot be an Observation's subject"),
        ("Practitioner/1", "cannot be an Observation's subject"), ("Patient/", "not a FHIR id"),
        ("Patient/a b", "not a FHIR id"), ("Patient/1/2", "[type]/[id]"), ("urn:uuid:xyz", "urn:uuid:"),
        ("https://example.org", "URL without"),
    ])
    func refusesWhatIsNoReferenceSayingWhy(text: String, expected: String) throws {
        let problem = try #require(FHIRReference.problem(withSubject: text))
        #expect(problem.contains(expected), "\(text): \(problem)")
    }
}
