/// Why an upload did not land at its receiver (a Nightscout site, a FHIR server): the receiver's answer or the
/// connection's failure. Never holds the credential.
public struct UploadFailure: Error, Sendable, CustomStringConvertible {
    /// The HTTP status, nil when there was no answer.
    public var status: UInt?
    /// The receiver's `Retry-After`, when it gave one.
    public var retryAfter: Duration?
    public var description: String

    public init(status: UInt? = nil, retryAfter: Duration? = nil, description: String) {
        self.status = status
        self.retryAfter = retryAfter
        self.description = description
    }

    /// The receiver refused the credential (401, 403): retrying does not help until it is fixed.
    public var isRefusal: Bool { status == 401 || status == 403 }
}
