public import Foundation

/// A notification a receiver refused for good (an e-mail recipient the relay answered 5xx): it is not retried,
/// and nothing was shared with that recipient.
public struct AlertDeliveryFailure: Sendable, Hashable {
    /// The channel it went through (``CareStore/emailAlertChannel``).
    public var channel: String
    public var alertID: Int64
    public var change: AlertChange
    /// The contact it was for, when it was for one.
    public var contactID: String?
    /// Where it was sent (an e-mail address).
    public var recipient: String
    /// The receiver's answer (`550 no such user`).
    public var error: String
    public var failedAt: Date

    public init(
        channel: String,
        alertID: Int64,
        change: AlertChange,
        contactID: String?,
        recipient: String,
        error: String,
        failedAt: Date
    ) {
        self.channel = channel
        self.alertID = alertID
        self.change = change
        self.contactID = contactID
        self.recipient = recipient
        self.error = error
        self.failedAt = failedAt
    }
}
