public import Foundation

/// A notification waiting in the alert outbox of a channel.
public struct AlertDelivery: Sendable, Hashable {
    public var sequence: Int64
    public var channel: String
    public var change: AlertChange
    public var alert: Alert
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
}
