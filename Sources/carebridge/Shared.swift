import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore

struct Shared: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The audit list of what was shared with which contact, when and how.",
        discussion: """
            Every report or alert CareBridge shares with a contact is recorded in the store (append-only). \
            `--record CONTACT --what report --channel email` adds an entry by hand (a report handed over on paper). \
            With --patient, only that patient's entries.

            JSON (--json): [{"contact", "patient", "what", "channel", "detail", "sharedAt"}].

            Examples:
              carebridge shared --patient bed-1
              carebridge shared --record dr-weber --what report --channel paper

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "Record that something was shared with this contact id.")
    var record: String?

    @Option(name: .long, help: "With --record: what was shared (report, alert, …).")
    var what = "report"

    @Option(name: .long, help: "With --record: how (email, paper, webhook, …).")
    var channel = "manual"

    @Option(name: .long, help: "With --record: a detail (the report's period, the file).")
    var detail: String?

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: record == nil ? .existing : .create, patients: .any)
        do {
            if let record {
                let entry = try await store.recordShare(contactID: record, what: what, channel: channel, detail: detail)
                if !json { print("recorded: \(entry.what) shared with \(entry.contactID) by \(entry.channel)") }
            }
            let entries = try await store.shares()
            if json {
                print(
                    JSONValue.array(
                        entries.map {
                            .object([
                                "contact": .string($0.contactID),
                                "patient": $0.patientID.map(JSONValue.string) ?? .null,
                                "what": .string($0.what), "channel": .string($0.channel),
                                "detail": $0.detail.map(JSONValue.string) ?? .null,
                                "sharedAt": .string(Timestamp.format($0.sharedAt, in: zone)),
                            ])
                        }
                    ).serialized()
                )
                return
            }
            if record != nil { return }
            guard !entries.isEmpty else {
                print("nothing has been shared yet")
                return
            }
            var table = Table(["WHEN", "CONTACT", "PATIENT", "WHAT", "CHANNEL", "DETAIL"])
            for entry in entries {
                table.append([
                    Timestamp.format(entry.sharedAt, in: zone), entry.contactID, entry.patientID ?? "", entry.what,
                    entry.channel, entry.detail ?? "",
                ])
            }
            print(table.render())
        } catch {
            throw StoreExit.fail(error)
        }
    }
}
