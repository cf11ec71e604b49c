import ArgumentParser
import BridgeFoundation
import CarePlan
import CareStore

struct Contacts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a patient's contacts: the care team and personal contacts (the Connect view).",
        discussion: """
            Contacts come from plan files ("contacts": [{"id", "name", "category": "careTeam" | "personal", \
            "role", "title", "organization", "phones", "messagingNumbers", "emails", "address", \
            "receives": ["reports", "alerts"], "alertSeverity": "info" | "warning" | "critical"}]). A contact \
            that receives reports or alerts is a recipient when CareBridge shares them (alerts by e-mail with \
            `alerts deliver --smtp`: only those at least as severe as its alertSeverity, default all); \
            `carebridge shared` lists what was shared with whom.

            JSON (--json): [{"id", "plan", "name", "category", "role", "title", "organization", "phones", \
            "messagingNumbers", "emails", "address", "receives", "alertSeverity"}].

            Examples:
              carebridge contacts --patient bed-1
              carebridge contacts --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing)
        let contacts: [CareContact] = try await StoreExit.attempt {
            try await store.contacts(patientID: store.patientScope)
        }
        if json {
            let rows = contacts.map { contact -> JSONValue in
                func list(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
                func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
                return .object([
                    "id": .string(contact.id), "plan": .string(contact.planID), "name": .string(contact.name),
                    "category": .string(contact.category.rawValue), "role": text(contact.role),
                    "title": text(contact.title), "organization": text(contact.organization),
                    "phones": list(contact.phones), "messagingNumbers": list(contact.messagingNumbers),
                    "emails": list(contact.emails), "address": text(contact.address),
                    "receives": list(contact.receives.map(\.rawValue)),
                    "alertSeverity": text(contact.alertSeverity?.rawValue),
                ])
            }
            print(JSONValue.array(rows).serialized(pretty: Output.isTerminal))
            return
        }
        guard !contacts.isEmpty else {
            print("no contacts (add them to a plan file: \"contacts\": [...], see --help)")
            return
        }
        for (category, heading) in [(CareContact.Category.careTeam, "Care team"), (.personal, "Personal")] {
            let group = contacts.filter { $0.category == category }
            guard !group.isEmpty else { continue }
            print(heading)
            var table = Table(["NAME", "ROLE", "ORGANIZATION", "PHONE", "EMAIL", "RECEIVES", "ID"])
            for contact in group {
                table.append([
                    contact.name, contact.role ?? "", contact.organization ?? "",
                    (contact.phones + contact.messagingNumbers).first ?? "", contact.emails.first ?? "",
                    contact.receives.map { delivery in
                        guard delivery == .alerts, let least = contact.alertSeverity, least > .info else {
                            return delivery.rawValue
                        }
                        return "alerts (\(least.rawValue)+)"
                    }.joined(separator: ", "),
                    contact.id,
                ])
            }
            print(table.render())
        }
    }
}
