/// Someone on a plan's contact list (CareKit's `OCKContact`, the seed's Connect scene): the care team (nurse,
/// physician) or personal contacts (family), and how to reach them.
public struct CareContact: Sendable, Hashable, Codable {
    /// The developer id, stable across versions.
    public var id: String
    /// The plan this contact belongs to.
    public var planID: String
    public var name: String
    public var category: Category
    /// `nurse`, `physician`, `daughter`, …
    public var role: String?
    public var title: String?
    public var organization: String?
    public var phones: [String]
    public var messagingNumbers: [String]
    public var emails: [String]
    /// A postal address as one block of text.
    public var address: String?
    /// What this contact receives when CareBridge shares: `reports`, `alerts`.
    public var receives: [Delivery]
    /// With `alerts`: the least severity of the alerts this contact is sent (nil: every alert). A physician may
    /// want `critical` only, a daughter `warning` and above.
    public var alertSeverity: AlertSeverity?

    public enum Category: String, Sendable, Hashable, Codable, CaseIterable {
        case careTeam, personal
    }

    public enum Delivery: String, Sendable, Hashable, Codable, CaseIterable {
        case reports, alerts
    }

    public init(
        id: String,
        planID: String,
        name: String,
        category: Category,
        role: String? = nil,
        title: String? = nil,
        organization: String? = nil,
        phones: [String] = [],
        messagingNumbers: [String] = [],
        emails: [String] = [],
        address: String? = nil,
        receives: [Delivery] = [],
        alertSeverity: AlertSeverity? = nil
    ) {
        self.id = id
        self.planID = planID
        self.name = name
        self.category = category
        self.role = role
        self.title = title
        self.organization = organization
        self.phones = phones
        self.messagingNumbers = messagingNumbers
        self.emails = emails
        self.address = address
        self.receives = receives
        self.alertSeverity = alertSeverity
    }

    /// Whether this contact is sent an alert of `severity`: it receives alerts, and the alert is at least as
    /// severe as ``alertSeverity``.
    public func receivesAlert(of severity: AlertSeverity) -> Bool {
        receives.contains(.alerts) && severity >= (alertSeverity ?? .info)
    }
}
