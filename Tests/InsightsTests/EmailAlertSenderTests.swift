import AlertDelivery
import CarePlan
import CareStore
import Foundation
import Insights
import Logging
import MQTTBridge
import TestSupport
import Testing

/// Alerts e-mailed to the patient's contacts through the alert outbox, against a real SMTP relay (aiosmtpd).
@Suite(.enabled(if: SMTPRelay.testsEnabled, "needs aiosmtpd; \(SMTPRelay.installHint)"))
struct EmailAlertSenderTests {
    typealias F = AlertFixture
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    static let from = EmailMessage.Mailbox(name: "CareBridge Ward 3", address: "alerts@ward.example")

    /// A store with patient bed-2 (Jürgen Weiß), four contacts and one open pain alert of `severity`; the e-mail
    /// channel on. Dr Weber is e-mailed critical alerts only, Lena warnings and above, Kim everything (at an
    /// address the relay refuses when told to), Ben reports only.
    static func ward(severity: AlertSeverity) async throws -> (F, Alert) {
        let fixture = try F()
        let store = fixture.store
        try await store.savePatient(Patient(id: "bed-2", name: "Jürgen Weiß"))
        try await store.enableAlertChannel(CareStore.emailAlertChannel)
        try await store.addTask(
            F.pain([AlertRule(id: "high", severity: severity, condition: .compare(.greaterThanOrEqual, 7, unit: nil))])
        )
        let contacts = [
            CareContact(
                id: "dr-weber",
                planID: "bed-2",
                name: "Dr Weber",
                category: .careTeam,
                emails: ["weber@clinic.example"],
                receives: [.reports, .alerts],
                alertSeverity: .critical
            ),
            CareContact(
                id: "lena",
                planID: "bed-2",
                name: "Lena Weiß",
                category: .personal,
                emails: ["lena@family.example"],
                receives: [.alerts],
                alertSeverity: .warning
            ),
            CareContact(
                id: "kim",
                planID: "bed-2",
                name: "Kim Park",
                category: .careTeam,
                emails: ["kim@gone.example"],
                receives: [.alerts]
            ),
            CareContact(
                id: "ben",
                planID: "bed-2",
                name: "Ben",
                category: .personal,
                emails: ["ben@family.example"],
                receives: [.reports]
            ),
        ]
        for contact in contacts { try await store.saveContact(contact) }
        try await fixture.answer("pain", "8", at: F.time(2026, 11, 20, 9))
        try await AlertEngine.evaluate(store: store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 20, 10))
        return (fixture, try #require(try await store.alerts().first))
    }

    static func channel(_ fixture: F, client: SMTPClient) -> AlertOutboxChannel {
        var channel = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.emailAlertChannel,
            sender: EmailAlertSender(store: fixture.store, client: client, from: from, zone: F.berlin),
            logger: quiet
        )
        channel.initialRetry = .zero
        return channel
    }

    @Test func aCriticalAlertIsMailedOnceOverSTARTTLSToTheContactsWhoReceiveItAcrossARefusedConnectionAndA451()
        async throws
    {
        let (fixture, alert) = try await Self.ward(severity: .critical)
        let authority = try TestCertificateAuthority()
        let relay = try SMTPRelay(
            certificate: try authority.issueServer(named: "relay", dnsNames: ["localhost"]),
            user: "ward3",
            password: "s3cret-pw"
        )
        try relay.refuse(["kim@gone.example"])
        let client = try SMTPClient(
            configuration: .init(
                host: "localhost",
                port: relay.port,
                security: .startTLS(caFile: authority.certificate),
                credentials: .init(user: "ward3", password: "s3cret-pw"),
                timeout: .seconds(20)
            )
        )
        let channel = Self.channel(fixture, client: client)

        // Nobody listens yet: connection refused, kept for a retry.
        let refused = await channel.deliverDue()
        #expect(refused.delivered == 0 && refused.failure?.contains("cannot connect") == true, "\(refused)")
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.emailAlertChannel) == 1)

        // Listening, but the relay defers the message (451): kept, nothing received.
        try await relay.start()
        try relay.deferData(times: 1)
        let deferred = await channel.deliverDue()
        #expect(deferred.delivered == 0 && deferred.failure?.contains("451") == true, "\(deferred)")
        #expect(try relay.messages.isEmpty)
        let kept = try await fixture.store.pendingAlertDeliveries(channel: CareStore.emailAlertChannel, limit: 5)
        #expect(kept.first?.attempts == 2 && kept.first?.lastError?.contains("s3cret") == false)

        let sent = await channel.deliverDue()
        #expect(sent.delivered == 1 && sent.failure == nil, "\(sent)")
        #expect(await channel.deliverDue().delivered == 0)
        let messages = try relay.messages
        #expect(messages.count == 1, "sent once, not again after the retries")
        let message = try #require(messages.first)
        #expect(message.tls && message.user == "ward3")
        #expect(message.mailFrom == "alerts@ward.example")
        #expect(message.recipients == ["weber@clinic.example", "lena@family.example"])
        #expect(message.from == "CareBridge Ward 3 <alerts@ward.example>")
        #expect(
            message.to.contains("Dr Weber <weber@clinic.example>")
                && message.to.contains("Lena Weiß <lena@family.example>")
        )
        #expect(!message.to.contains { $0.contains("ben@") })
        #expect(message.subject == "[CareBridge] critical alert for Jürgen Weiß: \(alert.trip.message)")
        #expect(message.contentType == "text/plain" && message.charset == "utf-8")
        #expect(
            message.messageID.hasPrefix("<carebridge-alert-\(alert.id)-")
                && message.messageID.hasSuffix("@ward.example>")
        )
        #expect(message.body.hasPrefix(alert.trip.message + "\n"))
        #expect(message.body.contains("Patient:  Jürgen Weiß (bed-2)\n"))
        #expect(message.body.contains("Severity: critical\n"))
        #expect(message.body.contains("carebridge alerts ack \(alert.id)"))

        // The audit names who got it and how; the refused address is recorded as failed, not shared.
        let shares = try await fixture.store.shares()
        #expect(shares.map(\.contactID) == ["dr-weber", "lena"])
        #expect(shares.allSatisfy { $0.channel == "email" && $0.what == "alert" && $0.patientID == "bed-2" })
        let failures = try await fixture.store.alertDeliveryFailures()
        #expect(failures.map(\.recipient) == ["kim@gone.example"] && failures.first?.contactID == "kim")
        #expect(failures.first?.error.hasPrefix("550") == true)

        // Acknowledging it is mailed too.
        try await fixture.store.acknowledgeAlert(id: alert.id, by: "Nurse Kim")
        #expect(await channel.deliverDue().delivered == 1)
        let acknowledged = try #require(try relay.messages.last)
        #expect(try relay.messages.count == 2)
        #expect(acknowledged.subject == "[CareBridge] alert acknowledged for Jürgen Weiß: \(alert.trip.message)")
        #expect(acknowledged.body.contains("Acknowledged by Nurse Kim"))
    }

    @Test func aWarningGoesOnlyToTheContactsWhoAskedForWarnings() async throws {
        let (fixture, _) = try await Self.ward(severity: .warning)
        let relay = try SMTPRelay()
        try await relay.start()
        let client = try SMTPClient(
            configuration: .init(host: "127.0.0.1", port: relay.port, security: .insecureLoopback)
        )
        #expect(await Self.channel(fixture, client: client).deliverDue().delivered == 1)
        #expect(try relay.messages.map(\.recipients) == [["kim@gone.example", "lena@family.example"]])
        #expect(try await fixture.store.shares().map(\.contactID) == ["kim", "lena"])
    }

    @Test func aMessageTheRelayRefusesForGoodIsRecordedAsFailedAndNotRetried() async throws {
        let (fixture, _) = try await Self.ward(severity: .critical)
        let relay = try SMTPRelay()
        try await relay.start()
        try relay.rejectData()
        let client = try SMTPClient(
            configuration: .init(host: "127.0.0.1", port: relay.port, security: .insecureLoopback)
        )
        let pass = await Self.channel(fixture, client: client).deliverDue()
        #expect(pass.delivered == 1 && pass.failure == nil)
        #expect(try await fixture.store.alertDeliveryCount(channel: CareStore.emailAlertChannel) == 0)
        #expect(try relay.messages.isEmpty)
        #expect(try await fixture.store.shares().isEmpty, "nothing reached anyone")
        let failures = try await fixture.store.alertDeliveryFailures(channel: CareStore.emailAlertChannel)
        #expect(
            failures.map(\.recipient).sorted() == ["kim@gone.example", "lena@family.example", "weber@clinic.example"]
        )
        #expect(failures.allSatisfy { $0.error.hasPrefix("554") })
    }

    @Test func aDeliveryToABrokerOrWebhookSharesNothingWithTheContacts() async throws {
        let fixture = try F()
        try await fixture.store.savePatient(Patient(id: "bed-2", name: "Jürgen Weiß"))
        try await fixture.store.enableAlertChannel(CareStore.webhookAlertChannel)
        try await fixture.store.saveContact(
            CareContact(
                id: "dr-weber",
                planID: "bed-2",
                name: "Dr Weber",
                category: .careTeam,
                emails: ["weber@clinic.example"],
                receives: [.alerts]
            )
        )
        try await fixture.store.addTask(
            F.pain([AlertRule(id: "high", severity: .critical, condition: .compare(.greaterThanOrEqual, 7, unit: nil))])
        )
        try await fixture.answer("pain", "8", at: F.time(2026, 11, 20, 9))
        try await AlertEngine.evaluate(store: fixture.store, from: F.time(2026, 11, 20), now: F.time(2026, 11, 20, 10))
        let sender = RecordingSender()
        let channel = AlertOutboxChannel(
            store: fixture.store,
            channel: CareStore.webhookAlertChannel,
            sender: sender,
            logger: Self.quiet
        )
        #expect(await channel.deliverDue().delivered == 1)
        #expect(sender.received == ["raised high"])
        #expect(try await fixture.store.shares().isEmpty, "a webhook is not Dr Weber's inbox")
    }
}

/// The SMTP client on its own, against the same relay.
@Suite(.enabled(if: SMTPRelay.testsEnabled, "needs aiosmtpd; \(SMTPRelay.installHint)"))
struct SMTPClientTests {
    static func message(to: [String], subject: String = "Test", body: String) -> EmailMessage {
        EmailMessage(
            from: .init(name: "CareBridge", address: "alerts@ward.example"),
            to: to.map { .init(address: $0) },
            subject: subject,
            body: body,
            date: Date(timeIntervalSince1970: 1_795_000_000),
            messageID: "test-1@ward.example",
            zone: TimeZone(identifier: "Europe/Berlin")!
        )
    }

    @Test func linesStartingWithADotArriveIntactAndUnicodeSurvivesHeadersAndBody() async throws {
        let relay = try SMTPRelay()
        try await relay.start()
        let client = try SMTPClient(
            configuration: .init(host: "127.0.0.1", port: relay.port, security: .insecureLoopback)
        )
        let body = "first\n.\n..two dots\n.leading\nÄrztin: 38,9 °C — bitte prüfen \nend"
        let result = try await client.send(
            Self.message(
                to: ["nurse@ward.example"],
                subject: "Fieber: 38,9 °C bei Jürgen Weiß, bitte sofort ansehen und melden",
                body: body
            )
        )
        #expect(result.accepted == ["nurse@ward.example"] && result.rejected.isEmpty)
        let received = try #require(try relay.messages.first)
        #expect(received.body == body + "\n")
        #expect(received.subject == "Fieber: 38,9 °C bei Jürgen Weiß, bitte sofort ansehen und melden")
        #expect(received.data.contains("\r\n.\r\n"), "the lone dot line arrived as a line, not as the end")
        #expect(received.date == "2026-11-18T12:06:40+01:00")
        #expect(received.data.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 78 })
    }

    @Test func withoutSTARTTLSOrWithAnUntrustedCertificateOrWrongPasswordNothingIsSent() async throws {
        // A relay without STARTTLS: refused unless told it is the local relay.
        let plain = try SMTPRelay()
        try await plain.start()
        let authority = try TestCertificateAuthority()
        let noTLS = try SMTPClient(
            configuration: .init(
                host: "127.0.0.1",
                port: plain.port,
                security: .startTLS(caFile: authority.certificate)
            )
        )
        await #expect { try await noTLS.send(Self.message(to: ["a@ward.example"], body: "x")) } throws: { error in
            (error as? SMTPError)?.code == .startTLSUnavailable && (error as? SMTPError)?.isTransient == false
        }
        #expect(try plain.messages.isEmpty)
        #expect(throws: SMTPError.self) {
            try SMTPClient(configuration: .init(host: "mail.example.org", security: .insecureLoopback))
        }

        let relay = try SMTPRelay(
            certificate: try authority.issueServer(named: "relay", dnsNames: ["localhost"]),
            user: "ward3",
            password: "right-pw"
        )
        try await relay.start()
        let untrusted = try SMTPClient(
            configuration: .init(host: "localhost", port: relay.port, security: .startTLS(caFile: nil))
        )
        await #expect { try await untrusted.send(Self.message(to: ["a@ward.example"], body: "x")) } throws: { error in
            (error as? SMTPError)?.code == .tlsFailed
        }
        let wrong = try SMTPClient(
            configuration: .init(
                host: "localhost",
                port: relay.port,
                security: .startTLS(caFile: authority.certificate),
                credentials: .init(user: "ward3", password: "wr0ng-pw")
            )
        )
        await #expect { try await wrong.send(Self.message(to: ["a@ward.example"], body: "x")) } throws: { error in
            guard let error = error as? SMTPError else { return false }
            return error.code == .authenticationFailed && !"\(error)".contains("wr0ng") && error.reply?.code == 535
        }
        #expect(try relay.messages.isEmpty)
    }

    @Test func aMessageDeferredWith451IsAnErrorToRetryAndTheRetrySendsItOnce() async throws {
        let relay = try SMTPRelay()
        try await relay.start()
        try relay.deferData(times: 1)
        let client = try SMTPClient(
            configuration: .init(host: "127.0.0.1", port: relay.port, security: .insecureLoopback)
        )
        await #expect { try await client.send(Self.message(to: ["a@ward.example"], body: "x")) } throws: { error in
            (error as? SMTPError)?.isTransient == true && (error as? SMTPError)?.reply?.code == 451
        }
        #expect(try relay.messages.isEmpty)
        _ = try await client.send(Self.message(to: ["a@ward.example"], body: "x"))
        #expect(try relay.messages.count == 1)
    }
}

/// Addresses and headers that could break the SMTP dialogue or add a header (no relay needed).
@Suite struct EmailMessageTests {
    static func message(subject: String) -> EmailMessage {
        EmailMessage(
            from: .init(address: "alerts@ward.example"),
            to: [.init(address: "a@b.example")],
            subject: subject,
            body: "x",
            date: Date(timeIntervalSince1970: 0),
            messageID: "m@ward.example"
        )
    }

    @Test(arguments: ["", "no-at-sign", "a@b\r\nRCPT TO:<x@y>", "<a@b>", "a b@c"])
    func anAddressThatCouldBreakTheDialogueIsRefused(address: String) {
        #expect(throws: SMTPError.self) { try EmailMessage.Mailbox.check(address) }
    }

    @Test func aSubjectWithALineBreakCannotAddAHeader() {
        let rendered = Self.message(subject: "Hi\r\nBcc: evil@x.example").rendered()
        #expect(!rendered.contains("\r\nBcc:"))
        #expect(EmailMessage.dotStuffed("a\r\n.b\r\n") == "a\r\n..b\r\n.\r\n")
        #expect(EmailMessage.dotStuffed(".x") == "..x\r\n.\r\n")
    }
}
