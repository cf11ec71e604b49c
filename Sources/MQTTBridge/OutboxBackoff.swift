/// How long a channel waits after failed deliveries: `initial`, doubled per failure in a row after the first, at
/// most `maximum` (the service retries a failed pass after it, ``OutboxPass/retryAfter``).
public struct OutboxBackoff: Sendable, Hashable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait after `failures` failed deliveries in a row (1 and less: `initial`).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initial
        for _ in 1..<min(max(failures, 1), 32) where delay < maximum { delay *= 2 }
        return min(delay, maximum)
    }
}
