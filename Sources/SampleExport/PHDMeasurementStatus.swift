import BridgeCore

/// A device reading's status flags in the PHD IG's terms: the Measurement-Status table of the PhdBaseObservation
/// page (HL7/phd `input/pagecontent/BaseObservationProfile.md`), by the flag names CareBridge's decoders give the
/// Measurement Status bits (GHS Observation status, PLX Measurement Status).
///
/// | bit | flag | Observation |
/// |---|---|---|
/// | questionable (1) | `questionable`, `questionable measurement detected` | interpretation `questionable` |
/// | calibration-ongoing (3) | `calibration ongoing` | interpretation `calibration-ongoing` |
/// | test-data (4), demo-data (5) | `test data`, `data for testing`, `data for demonstration` | meta.security `HTEST` |
/// | validated-data (8) | `validated data` | interpretation `validated-data` |
/// | early-indication (9) | `early estimate`, `early estimated data` | interpretation `early-indication`, status `preliminary` |
/// | msmt-ongoing (10) | `measurement ongoing` | status `preliminary` |
/// | msmt-value-exceed-boundaries (14) | `threshold error` | interpretation `in-alarm` |
/// | msmt-state-ann-inhibited (15) | `thresholding disabled` | interpretation `alarm-inhibited` |
///
/// invalid (0) and not-available (2) become `dataAbsentReason` in the guide; CareBridge quarantines such readings
/// (``SampleScreening``) and exports no Observation for them until released, so they never reach this mapping.
/// Most not-final readings (ongoing, early, test) are not stored as samples at all; the rows are kept for readings
/// a profile stores anyway.
struct PHDMeasurementStatus: Sendable, Equatable {
    /// The code system of the interpretations (HL7 Point-of-Care Device IG).
    static let system = "http://hl7.org/fhir/uv/pocd/CodeSystem/measurement-status"
    /// `meta.security` of test and demonstration data.
    static let testSecuritySystem = "http://terminology.hl7.org/CodeSystem/v3-ActReason"

    static let interpretations: [String: String] = [
        "questionable": "questionable", "questionable measurement detected": "questionable",
        "calibration ongoing": "calibration-ongoing", "validated data": "validated-data",
        "early estimate": "early-indication", "early estimated data": "early-indication",
        "threshold error": "in-alarm", "thresholding disabled": "alarm-inhibited",
    ]
    static let testFlags: Set<String> = ["test data", "data for testing", "data for demonstration"]
    static let preliminaryFlags: Set<String> = ["early estimate", "early estimated data", "measurement ongoing"]

    /// measurement-status codes for `Observation.interpretation`, in the order of the flags, each once.
    var interpretationCodes: [String]
    /// `meta.security` HTEST.
    var isTestData: Bool
    /// `Observation.status` `preliminary` instead of `final`.
    var isPreliminary: Bool

    init(flags: [String]) {
        var codes: [String] = []
        for flag in flags {
            if let code = Self.interpretations[flag], !codes.contains(code) { codes.append(code) }
        }
        interpretationCodes = codes
        isTestData = flags.contains(where: Self.testFlags.contains)
        isPreliminary = flags.contains(where: Self.preliminaryFlags.contains)
    }
}
