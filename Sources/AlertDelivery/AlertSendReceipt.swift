/// What a receiver confirmed for one alert notification: the contacts it reached, and the recipients that
/// refused it for good. A webhook or a broker is nobody's inbox: its receipt is empty, and the sharing audit
/// records nothing for it.
public struct AlertSendReceipt: Sendable, Hashable {
    /// A recipient that refused the notification for good (it is not sent again).
    public struct Refusal: Sendable, Hashable {
        /// The contact it was for.
        public var contactID: String?
        /// Where it was sent (an e-mail address).
        public var recipient: String
        /// The receiver's answer (`550 no such user`).
        public var reason: String

        public init(contactID: String?, recipient: String, reason: String) {
            self.contactID = contactID
            self.recipient = recipient
            self.reason = reason
        }
    }

    /// The ids of the contacts the receiver confirmed.
    public var reached: [String]
    public var refused: [Refusal]

    public init(reached: [String] = [], refused: [Refusal] = []) {
        self.reached = reached
        self.refused = refused
    }
}
