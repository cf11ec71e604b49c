public import MQTTBridge

/// What an upload channel (Nightscout, FHIR) knows from its last attempts: how many failed in a row, the
/// receiver's `Retry-After`, and whether it refused the credential. One per channel; the channel's
/// ``MQTTBridge/SampleBatchChannel`` pass asks it when to try again.
public struct UploadAttempts: Sendable {
    public var backoff = OutboxBackoff()
    /// The longest a receiver's `Retry-After` is honoured.
    public var maximumRetryAfter: Duration = .seconds(3600)
    /// Failed uploads in a row (the back-off's exponent).
    public private(set) var failures = 0
    /// The `Retry-After` of the last failed upload.
    public private(set) var lastRetryAfter: Duration?
    /// Why the receiver refused the credential at its last answer (nil: it did not).
    public private(set) var refusal: String?

    public init() {}

    /// The receiver confirmed an upload.
    public mutating func succeeded() {
        failures = 0
        refusal = nil
        lastRetryAfter = nil
    }

    /// An upload failed with `error`.
    public mutating func failed(_ error: UploadFailure) {
        failures += 1
        // Only an answer changes what is known about the credential (a cancelled or failed connection does not).
        if error.status != nil { refusal = error.isRefusal ? error.description : nil }
        lastRetryAfter = error.retryAfter
    }

    /// The receiver's `Retry-After` (at most ``maximumRetryAfter``), else the back-off.
    public func retryDelay() -> Duration {
        if let retryAfter = lastRetryAfter { return min(retryAfter, maximumRetryAfter) }
        return backoff.delay(afterFailures: failures)
    }
}
