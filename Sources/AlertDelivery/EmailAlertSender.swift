import CarePlan
public import CareStore
public import Foundation

/// E-mails each alert notification to the contacts of the alert's patient who receive alerts of its severity
/// (``CarePlan/CareContact/receivesAlert(of:)``: `"receives": ["alerts"]` and, optionally, `"alertSeverity"` in
/// the plan file), through an SMTP relay.
///
/// One message per notification, addressed to every such contact's addresses (they are the same patient's care
/// team): subject `[CareBridge] critical alert for Anna Schmidt: …` (or `… withdrawn`, `… acknowledged`), a
/// plain-text body with the patient, severity, time, rule and how to acknowledge it, and a `Message-ID` made from
/// the alert and the outbox entry, so a repeat after a lost confirmation carries the same id. The receipt names
/// the contacts the relay accepted; recipients it refused for good (5xx) are returned as refusals and not retried.
/// A notification with nobody to send to is confirmed without a message.
public struct EmailAlertSender: AlertSender {
    public let client: SMTPClient
    /// The `From` of every message.
    public let from: EmailMessage.Mailbox
    public let zone: TimeZone
    /// The wall clock the `Date` header is written from.
    public var now: @Sendable () -> Date = { Date() }
    let store: CareStore

    /// - Parameters:
    ///   - store: where the alert's patient and contacts are read.
    ///   - client: the relay.
    ///   - from: the sender address.
    ///   - zone: the zone times are written in.
    public init(store: CareStore, client: SMTPClient, from: EmailMessage.Mailbox, zone: TimeZone) {
        self.store = store
        self.client = client
        self.from = from
        self.zone = zone
    }

    /// Sends the notification to the contacts who receive it.
    /// - Throws: ``SMTPError`` when the relay took nothing (unreachable, 4xx, TLS or credentials refused): the
    ///   notification is retried.
    public func send(_ delivery: AlertDelivery) async throws -> AlertSendReceipt {
        let alert = delivery.alert
        let contacts = try await store.contacts(patientID: alert.patientID)
            .filter { $0.receivesAlert(of: alert.trip.severity) && !$0.emails.isEmpty }
            .sorted { $0.id < $1.id }
        var refused: [AlertSendReceipt.Refusal] = []
        var recipients: [(contactID: String, mailbox: EmailMessage.Mailbox)] = []
        for contact in contacts {
            for address in contact.emails {
                do {
                    try EmailMessage.Mailbox.check(address)
                    recipients.append((contact.id, EmailMessage.Mailbox(name: contact.name, address: address)))
                } catch {
                    refused.append(.init(contactID: contact.id, recipient: address, reason: error.message))
                }
            }
        }
        guard !recipients.isEmpty else { return AlertSendReceipt(refused: refused) }
        var patientName: String?
        if let id = alert.patientID { patientName = try await store.patients().first { $0.id == id }?.name }
        let message = EmailMessage(
            from: from,
            to: recipients.map(\.mailbox),
            subject: Self.subject(delivery, patientName: patientName),
            body: Self.body(delivery, patientName: patientName, zone: zone),
            date: now(),
            messageID:
                "carebridge-alert-\(alert.id)-\(delivery.sequence)@\(from.address.split(separator: "@").last ?? "localhost")",
            zone: zone
        )
        let result = try await client.send(message)
        let accepted = Set(result.accepted.map { $0.lowercased() })
        var reached: [String] = []
        for (contactID, mailbox) in recipients where accepted.contains(mailbox.address.lowercased()) {
            if !reached.contains(contactID) { reached.append(contactID) }
        }
        for rejection in result.rejected {
            let contactID = recipients.first { $0.mailbox.address.lowercased() == rejection.address.lowercased() }?
                .contactID
            refused.append(.init(contactID: contactID, recipient: rejection.address, reason: "\(rejection.reply)"))
        }
        return AlertSendReceipt(reached: reached, refused: refused)
    }

    /// `[CareBridge] critical alert for Anna Schmidt: Systolic 185 mmHg above 160`, `… withdrawn`, `… acknowledged`.
    public static func subject(_ delivery: AlertDelivery, patientName: String?) -> String {
        let trip = delivery.alert.trip
        let whose = patientName.map { " for \($0)" } ?? ""
        switch delivery.change {
        case .raised: return "[CareBridge] \(trip.severity.rawValue) alert\(whose): \(trip.message)"
        case .acknowledged: return "[CareBridge] alert acknowledged\(whose): \(trip.message)"
        case .withdrawn: return "[CareBridge] alert withdrawn\(whose): \(trip.message)"
        }
    }

    /// The plain-text body: what happened, to whom, when, which rule, and what to do.
    public static func body(_ delivery: AlertDelivery, patientName: String?, zone: TimeZone) -> String {
        let alert = delivery.alert
        let trip = alert.trip
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let patient = [patientName, alert.patientID.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
        var lines = [
            "\(trip.message)",
            "",
            "Patient:  \(patient.isEmpty ? "-" : patient)",
            "Severity: \(trip.severity.rawValue)",
            "When:     \(formatter.string(from: trip.occurredAt)) (\(zone.identifier))",
            "Rule:     \(trip.ruleID) of task \(alert.taskName)",
            "Alert:    \(alert.id), \(alert.state)",
        ]
        switch delivery.change {
        case .raised:
            lines += ["", "Acknowledge it with: carebridge alerts ack \(alert.id)"]
        case .acknowledged:
            let who = alert.acknowledgedBy.map { " by \($0)" } ?? ""
            let when = alert.acknowledgedAt.map { " at \(formatter.string(from: $0))" } ?? ""
            lines += ["", "Acknowledged\(who)\(when)."]
        case .withdrawn:
            lines += ["", "Withdrawn: \(alert.withdrawnReason ?? "the facts no longer trip the rule")."]
        }
        lines += ["", "-- ", "Sent by CareBridge to the contacts of this patient who receive alerts."]
        return lines.joined(separator: "\n")
    }
}
