/// Why an upload did not land at its receiver (a Nightscout site, a FHIR server): the receiver's answer or the
/// connection's failure. Never holds the credential.
public struct UploadFailure: Error, Sendable, CustomStringConvertible {
    /// The HTTP status, nil when there was no answer.
    public var status: UInt?
    /// The receiver's `Retry-After`, when it gave one.
    public var retryAfter: Duration?
    public var description: String
    /// Whether the receiver refused the credential; nil: as its status says.
    var refusal: Bool?

    /// - Parameter refusal: whether the receiver refused the credential; nil: when the status is 401 or 403 (a
    ///   token endpoint says so with 400 `invalid_grant` too).
    public init(status: UInt? = nil, retryAfter: Duration? = nil, description: String, refusal: Bool? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.description = description
        self.refusal = refusal
    }

    /// The receiver refused the credential (401, 403): retrying does not help until it is fixed.
    public var isRefusal: Bool { refusal ?? (status == 401 || status == 403) }
}
