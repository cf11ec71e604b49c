import ArgumentParser
import BridgeCore
import BridgeFoundation
import CareStore

struct DevicesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the session variables kept per device.",
        discussion: """
            Device profiles with session steps keep variables between connections: a glucose meter's download \
            cursor (lastSequence, the last record's sequence number), a multi-user scale's slot (userIndex) and \
            consent code (consentCode, shown as "set", never printed). JSON (--json): [{"device", "profile", \
            "name", "value", "updatedAt"}].

            Examples:
              carebridge devices list --store ~/.local/share/carebridge/store.sqlite
              carebridge devices list --json

            \(StoreExit.help)
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let zone = try global.resolvedTimeZone()
        let store = try await storeOptions.open(zone: zone, mode: .existing, patients: .any)
        let variables: [StoredSessionVariable] = try await StoreExit.attempt { try await store.allSessionVariables() }
        func shown(_ variable: StoredSessionVariable) -> String {
            variable.name == "consentCode" ? "set" : variable.value.description
        }
        if json {
            let rows: [JSONValue] = variables.map { variable in
                .object([
                    "device": .string(variable.device), "profile": .string(variable.profile),
                    "name": .string(variable.name), "value": .string(shown(variable)),
                    "updatedAt": .string(Timestamp.format(variable.updatedAt, in: zone)),
                ])
            }
            print(JSONValue.array(rows).serialized())
            return
        }
        guard !variables.isEmpty else {
            print("no device keeps session variables yet")
            return
        }
        var table = Table(["DEVICE", "PROFILE", "VARIABLE", "VALUE", "UPDATED"])
        for variable in variables {
            table.append([
                variable.device, variable.profile, variable.name, shown(variable),
                Timestamp.format(variable.updatedAt, in: zone),
            ])
        }
        print(table.render())
    }
}
